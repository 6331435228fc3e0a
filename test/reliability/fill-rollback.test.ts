// A fill whose commit is refused (docs/architecture.md "Transactions"): the claims a fill makes are
// written just before its commit, after it has handed its units out. A refusal there (a full disk,
// here a trigger that refuses every claim while the test keeps it) rolls the fill back; the units
// must leave their slots with it. Before session 13 they stayed, with no claim behind them: every
// lane kept phantom units and, once writes were accepted again, nothing ever ran.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { addFolder, allDone, killAll, makeMediaFolder, openDb, removeTempDirs, serve, tempDir, until, type Snapshot } from './fixtures/host';

afterEach(() => killAll());
afterAll(() => removeTempDirs());

interface Lane { lane: string; running: number }

describe('a fill whose commit is refused', () => {
  it('gives its slots back: once claims are accepted again every unit runs, and the lanes end with none running', { timeout: 300_000 }, async () => {
    const data = tempDir('fill-rollback');
    addFolder(data, makeMediaFolder(3));
    const db = openDb(data);
    // Armed before the host starts: its first fill (the folder's sync and downloads) is refused.
    db.exec(`CREATE TRIGGER test_refuse_claims BEFORE INSERT ON claims
             BEGIN SELECT RAISE(ABORT, 'test: claims refused'); END`);
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
});
