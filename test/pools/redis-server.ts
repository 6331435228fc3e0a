// Tests of the pools start their own redis-server (docs/pools.md "Tests"): a free port, a temporary
// folder, an admin user with a password and the default user off; stopped by its PID.
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../src-main/bench/pools-rig';

export interface TestRedis {
  port: number;
  pid: number;
  /** redis://backlot-admin:PASSWORD@127.0.0.1:PORT */
  adminUrl: string;
  password: string;
  stop(): Promise<void>;
}

/** A port free on 127.0.0.1 now: the bench's own (src-main/bench/pools-rig.ts). */
export { freePort };

/** Resolves once the child's output matches `ready`; rejects with its output if it exits first. */
export function waitForLine(child: ChildProcess, ready: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const m = ready.exec(seen);
      if (m) {
        child.stdout?.off('data', onData);
        child.stderr?.off('data', onData);
        child.off('exit', onExit);
        resolve(m[0]);
      }
    };
    const onExit = (code: number | null) => reject(new Error(`process exited (${code}) before it was ready: ${seen}`));
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

export function exitOf(child: ChildProcess): Promise<number | string> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode ?? child.signalCode!);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal!)));
}

export async function startRedis(dir: string, password = 'admin-password-for-tests'): Promise<TestRedis> {
  const port = await freePort();
  const child = spawn('redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no',
    '--user', 'default', 'off', '--user', 'backlot-admin', 'on', `>${password}`, '~*', '&*', '+@all',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  await waitForLine(child, /Ready to accept connections/);
  const exited = exitOf(child);
  return {
    port, pid: child.pid!, password,
    adminUrl: `redis://backlot-admin:${password}@127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGTERM');
      await exited;
    },
  };
}
