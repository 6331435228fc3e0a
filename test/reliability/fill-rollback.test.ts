// A fill whose commit is refused (docs/architecture.md "Transactions"): the claims a fill makes are
// written just before its commit, after it has handed its units out. A refusal there (a full disk,
// here a trigger that refuses every claim while the test keeps it) rolls the fill back; the units
// must leave their slots with it. Before session 13 they stayed, with no claim behind them: every
// lane kept phantom units and, once writes were accepted again, nothing ever ran.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { addFolder, allDone, backlot, killAll, makeMediaFolder, openDb, outcomeOf, removeTempDirs, serve, tempDir, until, type Snapshot } from './fixtures/host';

afterEach(() => killAll());
afterAll(() => removeTempDirs());

interface Lane { lane: string; running: number }
interface RunJson { channel: string; trigger: string; outcome: string; itemsDone: number }

const REFUSE_CLAIMS = `CREATE TRIGGER test_refuse_claims BEFORE INSERT ON claims
                       BEGIN SELECT RAISE(ABORT, 'test: claims refused'); END`;

describe('a fill whose commit is refused', () => {
  it('gives its slots back: once claims are accepted again every unit runs, and the lanes end with none running', { timeout: 300_000 }, async () => {
    const data = tempDir('fill-rollback');
    addFolder(data, makeMediaFolder(3));
    const db = openDb(data);
    // Armed before the host starts: its first fill (the folder's sync and downloads) is refused.
    db.exec(REFUSE_CLAIMS);
    const s = await serve(data, { chunkMs: 5 });
    try {
      await until('a refused fill', () => (/INTERNAL while filling free slots: test: claims refused/.test(s.stderr()) ? true : undefined), 60_000, 20);
      // Nothing was claimed, so nothing may be shown running.
      expect(db.prepare('SELECT COUNT(*) FROM claims').pluck().get()).toBe(0);
      const held = (await s.call<{ lanes: Lane[] }>('lanes.list')).lanes;
      expect(held.filter((l) => l.running > 0)).toEqual([]);

      db.exec('DROP TRIGGER test_refuse_claims');
      const snap = await until('all work done', async () => {
        const x = await s.call<Snapshot>('snapshot.get');
        return allDone(x) ? x : undefined;
      }, 180_000, 100);
      expect(allDone(snap)).toBe(true);
      await until('no unit running', async () => ((await s.call<{ lanes: Lane[] }>('lanes.list')).lanes.every((l) => l.running === 0) ? true : undefined), 60_000, 50);
      expect(db.prepare('SELECT COUNT(*) FROM claims').pluck().get()).toBe(0);
      expect(await s.stop()).toBe(0);
      // Every item operation ran once to its end: the refused fills left no run behind.
      expect(db.prepare("SELECT COUNT(*) FROM runs WHERE outcome = 'running'").pluck().get()).toBe(0);
      expect(db.prepare("SELECT COUNT(*) FROM work WHERE state <> 'done'").pluck().get()).toBe(0);
    } finally {
      db.close();
    }
  });

  // A run-now answered with a failure leaves nothing behind (docs/reliability.md "Disk full"):
  // before session 14 its request stayed, so the same request was refused as ALREADY_RUNNING, and
  // the channel's work started at a later fill although the person had been told it failed.
  it('forgets a run-now whose commit was refused: asked again it is refused the same way, then taken once claims are accepted', { timeout: 300_000 }, async () => {
    const data = tempDir('runnow-rollback');
    const channel = addFolder(data, makeMediaFolder(2, 'runnow'));
    // The tree's own cpu slots are held (0 slots), so only the requested run uses the lane.
    expect(backlot(['settings', 'set', 'lanes.cpu.slots', '0', '--data', data]).code).toBe(0);
    const db = openDb(data);
    db.exec(REFUSE_CLAIMS);
    const s = await serve(data, { chunkMs: 5 });
    try {
      const request = () => s.call('runs.runNow', { operation: 'transcribe', channel });
      expect(await outcomeOf(request())).toBe('INTERNAL');
      expect(await outcomeOf(request())).toBe('INTERNAL');
      expect((await s.call<{ lanes: Lane[] }>('lanes.list')).lanes.filter((l) => l.running > 0)).toEqual([]);

      db.exec('DROP TRIGGER test_refuse_claims');
      expect(await outcomeOf(request())).toBe('STARTED');
      const runs = await until('the requested run to end', async () => {
        const r = (await s.call<{ runs: RunJson[] }>('runs.list', { operation: 'transcribe' })).runs;
        return r.length > 0 && r.every((x) => x.outcome !== 'running') ? r : undefined;
      }, 120_000, 50);
      // One run, the one asked for last, over the channel's two items.
      expect(runs).toEqual([expect.objectContaining({ channel, trigger: 'manual', outcome: 'succeeded', itemsDone: 2 })]);
      expect(db.prepare('SELECT COUNT(*) FROM claims').pluck().get()).toBe(0);
      expect(await s.stop()).toBe(0);
    } finally {
      db.close();
    }
  });
});
