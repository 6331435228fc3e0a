// The zod-free half of the line protocol (DESIGN §7): framing, the protocol error, the job-line check.
// Every engine loads it at its start, which must not load zod (docs/benchmarks.md "The command line", session 7).
import type { EngineJob, EngineLine } from './engine-lines';

export type ProtocolViolation =
  | 'not-json'
  | 'not-object'
  | 'unknown-type'
  | 'invalid-field'
  | 'line-too-long'
  | 'second-terminal'
  | 'unexpected-job';

/** A line that broke the protocol: data for the run's reason, plus the raw excerpt for diagnosis. */
export interface ProtocolError {
  code: 'ENGINE_PROTOCOL';
  params: { violation: ProtocolViolation; type?: string; field?: string };
  /** The first characters of the offending line; raw engine text, so diagnostic only. */
  excerpt: string;
}

export type ParsedLine<T> = { ok: true; message: T } | { ok: false; error: ProtocolError };

/** Longest line the host accepts; a runaway engine must not grow the host's memory without end. */
export const MAX_LINE_CHARS = 1024 * 1024;
const EXCERPT_CHARS = 200;

/** One message as one line, newline included. JSON.stringify never emits a raw newline. */
export function encodeLine(message: EngineLine | EngineJob): string {
  return `${JSON.stringify(message)}\n`;
}

/** The line as a JSON object, or the violation that it is not one. Never throws. */
export function parseObject(line: string): ParsedLine<Record<string, unknown>> {
  if (line.length > MAX_LINE_CHARS) return violation(line, 'line-too-long', {});
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return violation(line, 'not-json', {});
  }
  if (!isRecord(value)) return violation(line, 'not-object', {});
  return { ok: true, message: value };
}

export function violation<T>(line: string, v: ProtocolViolation, extra: { type?: string; field?: string }): ParsedLine<T> {
  return {
    ok: false,
    error: { code: 'ENGINE_PROTOCOL', params: { violation: v, ...extra }, excerpt: line.slice(0, EXCERPT_CHARS) },
  };
}

/**
 * Parse the host's job line, for engines written in TypeScript. Never throws. The same check as
 * the job schema it replaced (type, then jobId, operation, input, outputDir, keepAlive; the first
 * wrong field is named; unknown fields are dropped), written out so an engine's start loads no zod.
 */
export function parseJobLine(line: string): ParsedLine<EngineJob> {
  const parsed = parseObject(line);
  if (!parsed.ok) return parsed;
  const m = parsed.message;
  if (m.type !== 'job') return violation(line, 'unknown-type', {});
  const field = firstWrongJobField(m);
  if (field !== null) return violation(line, 'invalid-field', { type: 'job', field });
  const job: EngineJob = {
    type: 'job', jobId: m.jobId as string, operation: m.operation as string,
    input: m.input as Record<string, unknown>, outputDir: m.outputDir as string,
  };
  if (m.keepAlive !== undefined) job.keepAlive = m.keepAlive as boolean;
  return { ok: true, message: job };
}

function firstWrongJobField(m: Record<string, unknown>): string | null {
  const text = (v: unknown) => typeof v === 'string' && v.length > 0;
  if (!text(m.jobId)) return 'jobId';
  if (!text(m.operation)) return 'operation';
  if (!isRecord(m.input)) return 'input';
  if (!text(m.outputDir)) return 'outputDir';
  if (m.keepAlive !== undefined && typeof m.keepAlive !== 'boolean') return 'keepAlive';
  return null;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
