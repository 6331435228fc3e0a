// A small argument parser shared by every command: flags with values, booleans, positionals, and
// a usage error for anything it does not know (so a typo is refused, not ignored).
import { parseArgs } from 'node:util';

export class CliUsageError extends Error {
  constructor(message: string, readonly exitCode = 2) {
    super(message);
  }
}

export interface FlagSpec {
  [name: string]: { type: 'string' | 'boolean'; short?: string; multiple?: boolean };
}

export function parseCommandArgs<F extends FlagSpec>(args: string[], flags: F, usage: string) {
  try {
    const parsed = parseArgs({ args, options: flags, allowPositionals: true, strict: true });
    return { values: parsed.values as { [K in keyof F]?: F[K]['type'] extends 'string' ? string : boolean }, positionals: parsed.positionals };
  } catch (e) {
    throw new CliUsageError(`${(e as Error).message.split('\n')[0]} Usage: ${usage}`);
  }
}

export function numberFlag(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new CliUsageError(`--${name} must be a positive number, got "${value}".`);
  return n;
}
