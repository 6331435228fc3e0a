// How the host starts an engine program: with this process's own node (Electron's binary acts as node
// with ELECTRON_RUN_AS_NODE), built JavaScript only, and an allow-listed environment: an engine
// sees PATH, HOME, the locale and what its adapter adds, never the host's secrets.
import type { EngineCommand } from './runner';

/** Variables every engine may see; everything else in the host's environment stays out. */
const ALLOWED = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'TEMP', 'TMP', 'SYSTEMROOT', 'WINDIR', 'APPDATA', 'LOCALAPPDATA', 'XDG_CACHE_HOME', 'XDG_RUNTIME_DIR'];

/** The allow-listed environment, plus the adapter's own variables (a venv's PYTHONPATH, a thread count). */
export function engineEnvironment(extra: Record<string, string> = {}, from: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(from)) {
    if (v !== undefined && (ALLOWED.includes(k) || k.startsWith('LC_'))) env[k] = v;
  }
  if (process.versions.electron) env.ELECTRON_RUN_AS_NODE = '1';
  return { ...env, ...extra };
}

/**
 * A built node program (`.js`/`.mjs`, never TypeScript: docs/desktop.md "One runtime") started
 * with this process's node, the program's fixed options, then `--` and the untrusted operands.
 */
export function nodeProgram(file: string, options: { args?: readonly string[]; operands?: readonly string[]; env?: Record<string, string>; cwd?: string } = {}): EngineCommand {
  if (file.endsWith('.ts')) throw new Error(`Engine programs run from the build, not from TypeScript: ${file}`);
  return {
    command: process.execPath,
    args: [file, ...(options.args ?? [])],
    ...(options.operands ? { operands: options.operands } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: engineEnvironment(options.env),
  };
}

/** A foreign binary (yt-dlp, ffmpeg, python): the same allow-listed environment. */
export function binaryProgram(command: string, options: { args?: readonly string[]; operands?: readonly string[]; env?: Record<string, string>; cwd?: string } = {}): EngineCommand {
  return {
    command,
    ...(options.args ? { args: options.args } : {}),
    ...(options.operands ? { operands: options.operands } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: engineEnvironment(options.env),
  };
}
