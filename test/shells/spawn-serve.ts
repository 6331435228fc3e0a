// One way for a test to start a real `backlot serve` and wait for the address it prints: the
// process, its URL and its stderr so far. Rejects with the exit code and stderr when serve stops
// before printing (a refused start is then checked through the error's `code` and `stderr`).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'backlot.mjs');

export interface SpawnedServe { proc: ChildProcess; url: URL; stderr: () => string }

export function spawnServe(args: readonly string[], env: NodeJS.ProcessEnv = process.env, onSpawn?: (proc: ChildProcess) => void): Promise<SpawnedServe> {
  const proc = spawn(process.execPath, [BIN, 'serve', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  onSpawn?.(proc);
  let out = '';
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)\n/.exec(out);
      if (m) resolve({ proc, url: new URL(m[1]), stderr: () => err });
    });
    proc.once('exit', (code) => reject(Object.assign(new Error(`serve exited with ${code} before printing its URL; stderr: ${err}`), { code, stderr: err })));
  });
}
