// A dead dispatcher's lock is taken over at once even when its pid still answers (issue 9): a
// holder killed with -9 whose parent has not reaped it is a zombie, and a pid can belong to another
// process by the time Backlot restarts. Real processes throughout: `backlot serve`, a parent that
// never reaps, and an unrelated live process whose pid stands in for a recycled one.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, ROOT, TOKEN, killAll, openDb, removeTempDirs, serve, until } from './fixtures/host';
import { createFixtureLibrary, type FixtureLibrary } from '../shells/library-fixture';
import { holderAlive, processFacts } from '../../src-main/system/process-alive';
import { holderStartTime } from '../../src-main/dispatch/lock';

const libraries: FixtureLibrary[] = [];
const extra = new Set<ChildProcess>();
afterEach(() => {
  killAll();
  for (const p of extra) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  extra.clear();
});
afterAll(() => {
  removeTempDirs();
  for (const l of libraries) l.remove();
});

function library(): FixtureLibrary {
  const lib = createFixtureLibrary(2);
  libraries.push(lib);
  return lib;
}

function lockRow(dataDir: string): { owner: string; pid: number } | undefined {
  const db = openDb(dataDir);
  try {
    return db.prepare('SELECT owner, pid FROM dispatcher_lock').get() as { owner: string; pid: number } | undefined;
  } finally {
    db.close();
  }
}

function runningRuns(dataDir: string): number[] {
  const db = openDb(dataDir);
  try {
    return (db.prepare("SELECT id FROM runs WHERE outcome = 'running' ORDER BY id").all() as { id: number }[]).map((r) => r.id);
  } finally {
    db.close();
  }
}

function outcomes(dataDir: string, ids: number[]): string[] {
  const db = openDb(dataDir);
  try {
    return ids.map((id) => (db.prepare('SELECT outcome FROM runs WHERE id = ?').get(id) as { outcome: string }).outcome);
  } finally {
    db.close();
  }
}

describe('the dispatcher lock after a kill -9', () => {
  it('is taken over from a zombie holder (killed, never reaped by its parent)', async () => {
    const lib = library();
    // `exec sleep` replaces the shell: the serve it started in the background is the child of a
    // process that never waits, so once killed it stays a zombie with its pid.
    const parent = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" serve --data "${lib.dataDir}" --port 0 --token ${TOKEN} --engines test --test-chunk-ms 400 >/dev/null 2>&1 & exec sleep 600`], { cwd: ROOT, stdio: 'ignore' });
    extra.add(parent);
    const holder = await until('the first serve to hold the lock', () => lockRow(lib.dataDir), 30_000);
    const open = await until('a run to be open', () => { const r = runningRuns(lib.dataDir); return r.length > 0 ? r : undefined; }, 30_000);

    process.kill(holder.pid, 'SIGKILL');
    await until('the holder to be a zombie', () => (processFacts(holder.pid)?.zombie ? true : undefined), 10_000);
    // The zombie still answers kill(pid, 0): a pid check alone would say the holder is alive.
    expect(() => process.kill(holder.pid, 0)).not.toThrow();
    expect(holderAlive(holder.pid, holderStartTime(holder.owner))).toBe(false);

    const next = await serve(lib.dataDir, { chunkMs: 400 });
    expect(lockRow(lib.dataDir)?.pid).toBe(next.proc.pid);
    // The sweep of the new holder closed what the dead one had open.
    expect(outcomes(lib.dataDir, open)).toEqual(open.map(() => 'interrupted'));
    expect(await next.stop()).toBe(0);
  });

  it('is taken over when the recorded pid now belongs to another process', async () => {
    const lib = library();
    const first = await serve(lib.dataDir, { chunkMs: 400 });
    const holder = lockRow(lib.dataDir)!;
    expect(holder.pid).toBe(first.proc.pid);
    expect(holderStartTime(holder.owner)).toBe(processFacts(first.proc.pid!)!.startTime);
    await first.kill9();

    // The pid is reused: an unrelated live process now has the number the lock recorded (the
    // lock row is pointed at it, since the kernel hands out pids on its own schedule).
    const stranger = spawn('sleep', ['600'], { stdio: 'ignore' });
    extra.add(stranger);
    await new Promise((resolve) => stranger.once('spawn', resolve));
    const db = openDb(lib.dataDir);
    try {
      db.prepare('UPDATE dispatcher_lock SET pid = ?').run(stranger.pid);
    } finally {
      db.close();
    }
    expect(() => process.kill(stranger.pid!, 0)).not.toThrow();

    const next = await serve(lib.dataDir, { chunkMs: 400 });
    expect(lockRow(lib.dataDir)?.pid).toBe(next.proc.pid);
    expect(stranger.exitCode).toBeNull(); // the stranger was never touched
    expect(await next.stop()).toBe(0);
  });

  it('is still refused while the holder lives, naming it', async () => {
    const lib = library();
    const first = await serve(lib.dataDir, { chunkMs: 400 });
    await expect(serve(lib.dataDir)).rejects.toMatchObject({ stderr: expect.stringContaining(`DISPATCHER_RUNNING: Another Backlot dispatcher (process ${first.proc.pid} on`) });
    expect(lockRow(lib.dataDir)?.pid).toBe(first.proc.pid);
    expect(await first.stop()).toBe(0);
  });
});

describe('process facts', () => {
  it('reads this process\'s start time and state, and nothing for a pid that does not exist', () => {
    const me = processFacts(process.pid);
    expect(me).toMatchObject({ zombie: false });
    expect(me!.startTime).toMatch(/^\d+$/);
    expect(processFacts(2 ** 22 + 12345)).toBeNull();
    expect(holderAlive(process.pid, me!.startTime)).toBe(true);
    expect(holderAlive(process.pid, String(Number(me!.startTime) + 1))).toBe(false);
    expect(holderAlive(process.pid, null)).toBe(true);
  });

  it('parses a command name with spaces and parentheses', () => {
    const weird = spawn(process.execPath, ['-e', 'process.title = "a (b) c"; setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    extra.add(weird);
    return until('the title to show', () => {
      const stat = fs.readFileSync(`/proc/${weird.pid}/stat`, 'utf8');
      return stat.includes('(a (b) c)') ? processFacts(weird.pid!) : undefined;
    }, 10_000).then((facts) => {
      expect(facts).toMatchObject({ zombie: false, startTime: expect.stringMatching(/^\d+$/) });
    });
  });
});
