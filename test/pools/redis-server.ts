// Tests of the pools start their own redis-server (docs/pools.md "Tests"): a free port, a temporary
// folder, an admin user with a password and the default user off; stopped by its PID.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../../src-main/bench/pools-rig';

export interface TestRedis {
  port: number;
  /** The PID of the running redis-server (a new one after restart). */
  pid: number;
  /** redis://backlot-admin:PASSWORD@127.0.0.1:PORT */
  adminUrl: string;
  password: string;
  stop(): Promise<void>;
  /** kill -9 of redis-server (only with `persistent`: then `restart` brings it back with its data). */
  kill9(): Promise<void>;
  /** Starts redis-server again on the same port and folder, from its append-only file and ACL file. */
  restart(): Promise<void>;
}

export interface TestRedisOptions {
  /**
   * `appendonly yes` and the users in an ACL file in `dir`, so a restart on the same port and folder
   * keeps the jobs and the pool users made since. `appendfsync always`: with `transport serve`'s
   * everysec a kill -9 may lose the last second's writes (Redis postpones a write while an fsync is
   * slow), which a test must not leave to the machine's load (docs/pools.md "What each failure does").
   */
  persistent?: boolean;
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

export async function startRedis(dir: string, password = 'admin-password-for-tests', options: TestRedisOptions = {}): Promise<TestRedis> {
  const port = await freePort();
  let args: string[];
  if (options.persistent) {
    const aclFile = path.join(dir, 'users.acl');
    fs.writeFileSync(aclFile, `user default off ~* &* +@all\nuser backlot-admin on >${password} ~* &* +@all\n`, { mode: 0o600 });
    args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--aclfile', aclFile];
  } else {
    args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no',
      '--user', 'default', 'off', '--user', 'backlot-admin', 'on', `>${password}`, '~*', '&*', '+@all'];
  }
  const launch = async (): Promise<{ child: ChildProcess; exited: Promise<number | string> }> => {
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    // Its log is kept in `dir` (redis.log), where a failing test can read why Redis lost something.
    if (options.persistent) for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (c: Buffer) => fs.appendFileSync(path.join(dir, 'redis.log'), c));
    await waitForLine(child, /Ready to accept connections/);
    // Its later output is drained, so a full pipe never stops it.
    child.stdout?.resume();
    child.stderr?.resume();
    return { child, exited: exitOf(child) };
  };
  let current = await launch();
  const redis: TestRedis = {
    port, pid: current.child.pid!, password,
    adminUrl: `redis://backlot-admin:${password}@127.0.0.1:${port}`,
    async stop() {
      const { child, exited } = current;
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGTERM');
      await exited;
    },
    async kill9() {
      const { child, exited } = current;
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
      await exited;
    },
    async restart() {
      if (!options.persistent) throw new Error('restart needs a persistent test Redis');
      current = await launch();
      redis.pid = current.child.pid!;
    },
  };
  return redis;
}
