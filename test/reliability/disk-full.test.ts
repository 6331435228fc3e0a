// A full disk never kills the host (issue 9): on a small tmpfs the test mounts (CI runs as root),
// filled to the last byte while the host is idle, while it dispatches, and before it starts. Each
// time the host stays up, every lane holds with DISK_FULL, one notice goes out, reads keep being
// answered, and once space returns the work resumes by itself and ends intact.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  addFolder, allDone, backlot, killAll, makeMediaFolder, openDb, removeTempDirs, serve, tempDir, until, type Served, type Snapshot,
} from './fixtures/host';
import { downloadsDone, expectDownloadsIntact, gatedFeedLibrary } from './fixtures/feed';

const mounts: string[] = [];
afterEach(() => killAll());
afterAll(() => {
  for (const m of mounts.splice(0)) spawnSync('umount', ['-l', m]);
  removeTempDirs();
});

/** A fresh tmpfs of `mb` megabytes, unmounted after the tests. */
function smallDisk(mb: number): string {
  const dir = tempDir('tmpfs');
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${mb}m`, 'tmpfs', dir]);
  mounts.push(dir);
  return dir;
}

/** Writes a filler file until the volume has no byte left. */
function fill(dir: string): string {
  const filler = path.join(dir, 'filler.bin');
  const fd = fs.openSync(filler, 'a');
  const chunk = Buffer.alloc(64 * 1024, 7);
  try {
    for (let size = chunk.length; size >= 512; size = Math.floor(size / 2)) {
      for (;;) {
        try { fs.writeSync(fd, chunk, 0, size); } catch { break; }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  expect(fs.statfsSync(dir).bavail).toBe(0);
  return filler;
}

interface Lane { lane: string; hold: { code: string; params: Record<string, unknown> } | null }

const lanes = async (s: Served) => (await s.call<{ lanes: Lane[] }>('lanes.list')).lanes;
const heldByDiskFull = (ls: Lane[]) => ls.every((l) => l.hold?.code === 'DISK_FULL');

/** A library on the small disk whose media lives elsewhere; resuming needs only 1 MiB free. */
function libraryOnSmallDisk(files: number): { data: string; disk: string } {
  const disk = smallDisk(24);
  const data = path.join(disk, 'data');
  addFolder(data, makeMediaFolder(files));
  expect(backlot(['settings', 'set', 'diskFull.resumeAboveBytes', String(1024 * 1024), '--data', data]).code).toBe(0);
  return { data, disk };
}

async function runToEnd(s: Served, data?: string): Promise<Snapshot> {
  let last: Snapshot | undefined;
  try {
    return await until('all work done', async () => {
      last = await s.call<Snapshot>('snapshot.get');
      return allDone(last) ? last : undefined;
    }, 120_000, 100);
  } catch (e) {
    // What was left undone, for whoever reads the failure: the counts, the lanes, the work rows, the claims.
    const db = data ? openDb(data) : null;
    const rows = db?.prepare("SELECT operation, item_id, state, ready, claimed, attempts, deferral_kind, deferral_until, deferral_code FROM work WHERE state <> 'done'").all();
    const claims = db?.prepare('SELECT * FROM claims').all();
    // The runs of the operations still undone, last first: what the host kept doing (or not) while the test waited.
    const runs = db?.prepare("SELECT r.id, r.operation, r.started_at, r.ended_at, r.outcome, r.reason_code, r.items_done FROM runs r WHERE r.operation IN (SELECT operation FROM work WHERE state <> 'done') ORDER BY r.id DESC LIMIT 12").all();
    const runCount = db?.prepare("SELECT operation, outcome, reason_code, COUNT(*) AS n FROM runs GROUP BY operation, outcome, reason_code").all();
    db?.close();
    throw new Error(`${(e as Error).message}\nsnapshot: ${JSON.stringify(last)}\nlanes: ${JSON.stringify(await lanes(s).catch(() => null))}\nwork: ${JSON.stringify(rows)}\nclaims: ${JSON.stringify(claims)}\nruns: ${JSON.stringify(runs)}\nrun counts: ${JSON.stringify(runCount)}\nstderr: ${s.stderr()}`);
  }
}

describe('a full disk', () => {
  it('while idle: the host stays up, holds every lane with DISK_FULL, answers reads, and lets go when space returns', { timeout: 300_000 }, async () => {
    const { data, disk } = libraryOnSmallDisk(2);
    const s = await serve(data, { chunkMs: 5 });
    await runToEnd(s);
    const filler = fill(disk);
    // The lock's renewal is the first write an idle host makes (every 10 s): it finds the disk full.
    const held = await until('every lane held by DISK_FULL', async () => { const ls = await lanes(s); return heldByDiskFull(ls) ? ls : undefined; }, 60_000, 200);
    expect(held[0].hold!.params).toMatchObject({ path: data, freeBytes: 0 });
    expect(s.proc.exitCode).toBeNull();
    expect((await s.call<{ channels: unknown[] }>('library.list')).channels).toHaveLength(1);
    expect(s.stderr()).not.toMatch(/INTERNAL|Error:/);
    const notices = (await s.call<{ notices: { kind: string; code: string }[] }>('notices.list')).notices;
    expect(notices.filter((n) => n.kind === 'disk-full')).toEqual([expect.objectContaining({ kind: 'disk-full', code: 'DISK_FULL' })]);
    fs.rmSync(filler);
    await until('the holds to lift', async () => ((await lanes(s)).some((l) => l.hold?.code === 'DISK_FULL') ? undefined : true), 60_000, 200);
    expect(await s.stop()).toBe(0);
    const db = openDb(data);
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });

  it('while dispatching: nothing is lost or counted twice, and the run ends where it would have', { timeout: 300_000 }, async () => {
    const { data, disk } = libraryOnSmallDisk(6);
    const s = await serve(data, { chunkMs: 60 });
    const db = openDb(data);
    await until('some outputs', () => ((db.prepare('SELECT COUNT(*) FROM work WHERE output_job IS NOT NULL').pluck().get() as number) >= 3 ? true : undefined), 60_000, 20);
    const filler = fill(disk);
    await until('every lane held by DISK_FULL', async () => (heldByDiskFull(await lanes(s)) ? true : undefined), 60_000, 100);
    expect(s.proc.exitCode).toBeNull();
    expect((await s.call<Snapshot>('snapshot.get')).channels).toHaveLength(1);
    const notices = s.stderr();
    expect(notices).not.toMatch(/INTERNAL/);
    fs.rmSync(filler);
    const snap = await runToEnd(s, data);
    expect(allDone(snap)).toBe(true);
    await until('no run left open', () => ((db.prepare("SELECT COUNT(*) FROM runs WHERE outcome = 'running'").pluck().get() as number) === 0 ? true : undefined), 60_000, 50);
    expect(await s.stop()).toBe(0);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    // Every output is recorded once, with its file complete on disk.
    // The item operations' outputs (the channel's roll-up is remade as digests land: not counted once).
    const outputs = db.prepare("SELECT output_path, output_bytes FROM work WHERE output_job IS NOT NULL AND operation NOT IN ('download', 'channel-digest')").all() as { output_path: string; output_bytes: number }[];
    expect(outputs).toHaveLength(6 * 5);
    for (const o of outputs) expect(fs.statSync(o.output_path).size).toBe(o.output_bytes);
    const done = db.prepare("SELECT SUM(items_done) FROM runs WHERE operation <> 'channel-digest'").pluck().get();
    expect(done).toBe(6 * 5);
    // A full disk is never an item's fault: no attempt was counted against any work.
    expect(db.prepare('SELECT COUNT(*) FROM work WHERE attempts > 0').pluck().get()).toBe(0);
    db.close();
  });

  it('at a restart on a full disk: the host starts held instead of exiting, then sweeps and dispatches when space returns', { timeout: 300_000 }, async () => {
    const { data, disk } = libraryOnSmallDisk(2);
    const filler = fill(disk);
    const s = await serve(data, { chunkMs: 5 });
    expect(heldByDiskFull(await lanes(s))).toBe(true);
    expect((await s.call<{ channels: unknown[] }>('library.list')).channels).toHaveLength(1);
    fs.rmSync(filler);
    const snap = await runToEnd(s);
    expect(allDone(snap)).toBe(true);
    expect(await s.stop()).toBe(0);
  });
});

/**
 * Space returns (the filler removed): every download is done and committed, no claim is left, the
 * host stops cleanly without an internal error, and each download is byte-identical, written once.
 */
async function spaceBackAllDownloaded(s: Served, lib: Parameters<typeof expectDownloadsIntact>[0], filler: string): Promise<void> {
  fs.rmSync(filler);
  await until('every download done', () => (downloadsDone(lib.data) ? true : undefined), 120_000, 100);
  await until('no claim left', () => {
    const d = openDb(lib.data);
    try { return (d.prepare('SELECT COUNT(*) FROM claims').pluck().get() as number) === 0 ? true : undefined; } finally { d.close(); }
  }, 60_000, 50);
  expect(await s.stop()).toBe(0);
  expect(s.stderr()).not.toMatch(/INTERNAL/);
  expectDownloadsIntact(lib);
}

// The same full disk met by the production engines' own commit path (issue 18 §1): a feed synced
// by the feed engine and downloaded by the http engine into the library on the small disk, the disk
// filled while the first download is in flight. The downloads wait, resume once space returns, and
// each ends on disk byte-identical, its item's media written once by its one commit, nothing left.
describe('a full disk with the production engines', () => {
  it('while a production download runs: not counted as a failure; resumed and committed once when space returns', { timeout: 300_000 }, async () => {
    const disk = smallDisk(24);
    const lib = await gatedFeedLibrary(path.join(disk, 'data'), [['diskFull.resumeAboveBytes', String(1024 * 1024)]]);
    try {
      const s = await serve(lib.data, { engines: 'production' });
      await until('a download in flight', () => (lib.downloading() ? true : undefined), 60_000, 20);
      const filler = fill(disk);
      lib.open();
      const db = openDb(lib.data);
      // Met either by the host's own write (every lane held) or by the engine's (a run that says DISK_FULL).
      await until('the full disk met', async () => {
        if ((await lanes(s)).some((l) => l.hold?.code === 'DISK_FULL')) return true;
        return (db.prepare("SELECT COUNT(*) FROM runs WHERE reason_code = 'DISK_FULL'").pluck().get() as number) > 0 ? true : undefined;
      }, 60_000, 50);
      db.close();
      expect(s.proc.exitCode).toBeNull();
      await spaceBackAllDownloaded(s, lib, filler);
    } finally {
      await lib.server.close();
    }
  });
});

// The full disk met inside a production engine's commit (issue 18 §1): the host stops itself at the
// commit fence of its first download (BACKLOT_TEST_COMMIT_FENCE, units/commit-fence.ts: the media
// downloaded, nothing moved yet), the test fills the disk and lets it go on. The commit cannot be
// written (its journal, its settle): every lane holds with DISK_FULL, nothing of it counts as done, the host stays up;
// once space returns the download is done again and committed once, byte-identical.
describe('a full disk inside a production engine commit', () => {
  it('a download (http engine) whose commit meets the full disk: DISK_FULL, not counted; committed once when space returns', { timeout: 300_000 }, async () => {
    const disk = smallDisk(24);
    // One download at a time: a second one, downloaded while the host stood at the fence, could
    // commit on the full disk (a rename and a few pages in the log's room need no new space), and
    // this case is about the refused commit alone.
    const lib = await gatedFeedLibrary(path.join(disk, 'data'), [['diskFull.resumeAboveBytes', String(1024 * 1024)], ['lanes.download.slots', '1']]);
    lib.open();
    try {
      const s = await serve(lib.data, { engines: 'production', env: { BACKLOT_TEST_COMMIT_FENCE: 'download:before-commit:stop' } });
      const pid = s.proc.pid!;
      // Stopped at the fence: it said so on stderr, then its state is T (stopped).
      await until('the host stopped inside its first download commit', () => (/commit fence: stop download before-commit \S+/.test(s.stderr())
        && /^\d+ \(.*\) T /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')) ? true : undefined), 60_000, 20);
      const job = /commit fence: stop download before-commit (\S+)/.exec(s.stderr())![1];
      const filler = fill(disk);
      s.proc.kill('SIGCONT');
      // The refused commit (or the host's next write) holds every lane with the code, and says so once.
      const held = await until('every lane held by DISK_FULL', async () => { const ls = await lanes(s); return heldByDiskFull(ls) ? ls : undefined; }, 60_000, 50);
      expect(held[0].hold!.params).toMatchObject({ path: lib.data, freeBytes: 0 });
      expect(s.proc.exitCode).toBeNull();
      const notices = (await s.call<{ notices: { kind: string; code: string }[] }>('notices.list')).notices;
      expect(notices.filter((n) => n.kind === 'disk-full')).toEqual([expect.objectContaining({ kind: 'disk-full', code: 'DISK_FULL' })]);
      const db = openDb(lib.data);
      // Nothing of the refused commit counts: its job recorded nowhere, its media not the item's, no final left.
      expect(db.prepare('SELECT COUNT(*) FROM work WHERE output_job = ?').pluck().get(job)).toBe(0);
      expect(db.prepare('SELECT COUNT(*) FROM test_media_writes').pluck().get()).toBe(0);
      expect(fs.existsSync(path.join(lib.data, 'media')) ? fs.readdirSync(path.join(lib.data, 'media'), { recursive: true }).filter((n) => String(n).endsWith('.mp3')) : []).toEqual([]);
      db.close();
      await spaceBackAllDownloaded(s, lib, filler);
    } finally {
      await lib.server.close();
    }
  });
});
