// The unit of work: what is kept in memory during a transaction (count changes, run totals,
// remembered best rows) commits with it, is written before a savepoint can roll it away, and is
// forgotten on rollback; claims a rolled-back fill made are never started, and their slots and
// runs go back with them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Host } from '../../src-main/host/host';
import { VirtualClock } from '../../src-main/system/clock';
import { Arbiter, type RunningUnit } from '../../src-main/arbiter/arbiter';
import { DEFAULT_LANES, defaultBindings } from '../../src-main/arbiter/lanes';
import { ManualRuns } from '../../src-main/arbiter/manual-runs';
import { utcWallTime } from '../../src-main/gates/quiet-hours';
import { snapshot } from '../../src-main/work/snapshot';
import { retryWork } from '../../src-main/work/retry';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

function newHost(): Host {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-txhooks-'));
  dirs.push(dir);
  const host = new Host({ databaseFile: path.join(dir, 'b.sqlite'), clock: new VirtualClock(0) });
  host.library.addChannel({ id: 'c1', kind: 'platform', platform: 'youtube', title: 'C', source: 'sim:c1' }, 0);
  return host;
}

function addItem(host: Host, id: string, publishedAt: number): void {
  host.library.addItem({ id, channel_id: 'c1', external_id: id, title: id, published_at: publishedAt, duration_s: 60, fingerprint: id, media_state: 'local' }, 0, ['download']);
}

/** The counts table as stored, and as a recount of the work rows would have it. */
function counts(host: Host): { stored: unknown[]; recount: unknown[] } {
  return {
    stored: host.db.prepare('SELECT channel_id, operation, state, n FROM work_counts WHERE n <> 0 ORDER BY 1, 2, 3').all(),
    recount: host.db.prepare('SELECT channel_id, operation, state, COUNT(*) AS n FROM work GROUP BY 1, 2, 3 ORDER BY 1, 2, 3').all(),
  };
}

function newArbiter(host: Host, started: RunningUnit[]): Arbiter {
  const arbiter = new Arbiter(host, {
    lanes: Object.values(DEFAULT_LANES).map((l) => ({ ...l })), bindings: defaultBindings(),
    retry: { maxAttempts: 3, baseS: 30, maxS: 900, jitter: 0 }, disk: null, spendCapUsd: null,
    spendWindowStart: () => 0, quietHours: [], wallTime: utcWallTime, leaseS: 60, actor: 'test',
  });
  host.transaction(() => arbiter.setTree({ id: 'root', children: [{ id: 'gpu-work', match: { operation: 'transcribe' } }] }, 0));
  // The caller starts what a fill claimed; these tests only record it.
  const fill = arbiter.fill.bind(arbiter);
  arbiter.fill = (now: number) => { const units = fill(now); started.push(...units); return units; };
  return arbiter;
}

/** Runs fn in a transaction whose commit fails as a full disk fails it (SQLITE_FULL from a before-commit write). */
function commitFailer(host: Host): (fn: () => void) => void {
  let failCommit = false;
  host.uow.addHook({
    beforeCommit: () => { if (failCommit && host.db.inTransaction) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }); },
    afterRollback: () => undefined,
  });
  return (fn) => {
    failCommit = true;
    try {
      expect(() => host.transaction(fn)).toThrow('disk is full');
    } finally {
      failCommit = false;
    }
  };
}

describe('the unit of work', () => {
  it('commits the count changes made in a transaction with it, and a reader inside it sees them', () => {
    const host = newHost();
    host.transaction(() => {
      addItem(host, 'a', 10);
      addItem(host, 'b', 5);
      expect(snapshot(host.db, {}, host.uow).channels[0].operations.transcribe.missing).toBe(2);
    });
    const c = counts(host);
    expect(c.stored).toEqual(c.recount);
    host.close();
  });

  it('forgets the count changes of a rolled-back transaction, and of a rolled-back savepoint only its own', () => {
    const host = newHost();
    expect(() => host.transaction(() => { addItem(host, 'gone', 1); throw new Error('abort'); })).toThrow('abort');
    host.transaction(() => {
      addItem(host, 'kept', 10);
      expect(() => host.transaction(() => { addItem(host, 'undone', 5); throw new Error('inner'); })).toThrow('inner');
      addItem(host, 'also-kept', 7);
    });
    const c = counts(host);
    expect(c.stored).toEqual(c.recount);
    expect(host.db.prepare("SELECT n FROM work_counts WHERE operation = 'transcribe' AND state = 'missing'").pluck().get()).toBe(2);
    host.close();
  });

  it('rolls back when a before-commit write fails, and runs the rollback hooks', () => {
    const host = newHost();
    let rolledBack = 0;
    const remove = host.uow.addHook({
      beforeCommit: () => { if (host.db.inTransaction) throw new Error('disk full'); },
      afterRollback: () => { rolledBack++; },
    });
    expect(() => host.transaction(() => addItem(host, 'a', 1))).toThrow('disk full');
    remove();
    expect(rolledBack).toBe(1);
    expect(host.library.item('a')).toBeUndefined();
    const c = counts(host);
    expect(c.stored).toEqual(c.recount);
    host.close();
  });

  it('picks a claimed item again when the transaction that claimed it rolled back', () => {
    const host = newHost();
    const started: RunningUnit[] = [];
    const arbiter = newArbiter(host, started);
    host.transaction(() => { addItem(host, 'a', 10); addItem(host, 'b', 5); });
    const leaf = arbiter.tree(0).leaves[0];
    expect(() => host.transaction(() => {
      arbiter.fill(0);
      expect(arbiter.leaves.leafCandidate(leaf, 'gpu', 0, 'open')?.itemId).toBe('b');
      throw new Error('crash after the claim');
    })).toThrow('crash');
    expect(started.map((u) => u.itemId)).toEqual(['a']);
    // The leaf remembered b once a was claimed; the rollback made a ready again.
    expect(arbiter.leaves.leafCandidate(leaf, 'gpu', 0, 'open')?.itemId).toBe('a');
    // The same arbiter's slot is free again: a is claimed by its next fill.
    expect(arbiter.running()).toEqual([]);
    host.transaction(() => arbiter.fill(0));
    expect(started.map((u) => u.itemId)).toEqual(['a', 'a']);
    expect(host.db.prepare('SELECT item_id FROM claims').pluck().all()).toEqual(['a']);
    host.close();
  });

  // Seen once under load (disk-full.test.ts "while dispatching"): the disk filled as a fill's
  // claims were written at its commit. The fill had already handed its units out; the rollback
  // left them on their slots with no claim, and the lane kept a phantom unit forever.
  it('gives back the slots and runs of a fill whose commit failed, though the fill had handed its units out', () => {
    const host = newHost();
    const started: RunningUnit[] = [];
    const arbiter = newArbiter(host, started);
    host.transaction(() => { for (const [id, t] of [['a', 10], ['b', 5], ['c', 1]] as const) addItem(host, id, t); });
    const failingCommit = commitFailer(host);
    failingCommit(() => { arbiter.fill(0); });
    expect(started.map((u) => u.itemId)).toEqual(['a']);
    expect(arbiter.running()).toEqual([]);
    expect(host.db.prepare('SELECT COUNT(*) FROM runs').pluck().get()).toBe(0);
    // The next fill claims a again, on the slot the failed one had taken.
    host.transaction(() => { arbiter.fill(1); });
    expect(started.map((u) => u.itemId)).toEqual(['a', 'a']);
    expect(arbiter.running().map((u) => u.itemId)).toEqual(['a']);
    const runId = started[1].runId;
    // a ends; the fill that would continue its run with b fails at the commit: the run is still the
    // slot's, waiting (not forgotten, not left open for ever), and the next fill continues it.
    host.transaction(() => { arbiter.complete(started[1], { outcome: 'done' }, 5); });
    failingCommit(() => { arbiter.fill(6); });
    expect(started.map((u) => u.itemId)).toEqual(['a', 'a', 'b']);
    expect(arbiter.running()).toEqual([]);
    host.transaction(() => { arbiter.fill(7); });
    expect(started.slice(3).map((u) => [u.itemId, u.runId])).toEqual([['b', runId]]);
    expect(host.db.prepare('SELECT id, outcome, items_done FROM runs').all()).toEqual([{ id: runId, outcome: 'running', items_done: 1 }]);
    // b ends and nothing is left to pick: the fill that would close the run fails at the commit;
    // the next one closes it.
    host.transaction(() => { arbiter.complete(started[3], { outcome: 'done' }, 8); });
    host.transaction(() => { host.work.recordDeferral('transcribe', 'c', { attempts: 0, kind: 'excluded', until: null, code: 'TEST' }, 8); });
    failingCommit(() => { arbiter.fill(9); });
    expect(host.db.prepare('SELECT outcome FROM runs WHERE id = ?').pluck().get(runId)).toBe('running');
    host.transaction(() => { arbiter.fill(10); });
    expect(host.db.prepare('SELECT outcome, items_done FROM runs WHERE id = ?').get(runId)).toEqual({ outcome: 'succeeded', items_done: 2 });
    expect(host.db.prepare('SELECT COUNT(*) FROM claims').pluck().get()).toBe(0);
    host.close();
  });

  // A run-now or do-next whose commit fails was answered with that failure (DISK_FULL): it must
  // leave nothing behind, neither its ad-hoc slot nor its job, which would refuse the next request
  // (ALREADY_RUNNING) and start the channel's work at a later fill that nobody asked for any more.
  it('forgets a requested run whose commit failed: the request can be made again and nothing starts by itself', () => {
    const host = newHost();
    const started: RunningUnit[] = [];
    const arbiter = newArbiter(host, started);
    host.transaction(() => arbiter.setTree({ id: 'root', children: [{ id: 'elsewhere', match: { channel: ['zz'] } }] }, 0));
    const manual = new ManualRuns(host, arbiter);
    host.transaction(() => { for (const [id, t] of [['a', 10], ['b', 5]] as const) addItem(host, id, t); });
    const failingCommit = commitFailer(host);
    failingCommit(() => { manual.runNow('transcribe', 'c1', 'test', 0); arbiter.takeClaimed(); });
    failingCommit(() => { manual.doNext('transcribe', 'b', 'test', 0); arbiter.takeClaimed(); });
    expect(manual.active()).toEqual([]);
    expect(arbiter.running()).toEqual([]);
    // A fill after the failures starts nothing: the tree has no leaf and no request stands.
    host.transaction(() => { arbiter.fill(1); });
    expect(started).toEqual([]);
    expect(host.db.prepare('SELECT COUNT(*) FROM claims').pluck().get()).toBe(0);
    // Asked again, the run-now is taken, not refused as already running.
    const unit = host.transaction(() => manual.runNow('transcribe', 'c1', 'test', 2));
    expect(unit.itemId).toBe('a');
    expect(manual.active().map((j) => [j.operation, j.channelId])).toEqual([['transcribe', 'c1']]);
    // A savepoint rolled back inside a committing transaction undoes only its own request.
    host.transaction(() => {
      host.library.addChannel({ id: 'c2', kind: 'platform', platform: 'youtube', title: 'C2', source: 'sim:c2' }, 3);
      host.library.addItem({ id: 'x', channel_id: 'c2', external_id: 'x', title: 'x', published_at: 3, duration_s: 60, fingerprint: 'x', media_state: 'local' }, 3, ['download']);
    });
    host.transaction(() => {
      expect(() => host.transaction(() => { manual.doNext('transcribe', 'x', 'test', 3); throw new Error('inner'); })).toThrow('inner');
      expect(manual.active()).toHaveLength(1);
    });
    expect(manual.active()).toHaveLength(1);
    host.close();
  });

  it('undoes only a rolled-back savepoint\'s slot changes: the transaction around it keeps its own', () => {
    const host = newHost();
    const started: RunningUnit[] = [];
    const arbiter = newArbiter(host, started);
    host.transaction(() => {
      addItem(host, 'a', 10);
      arbiter.fill(0);
      expect(() => host.transaction(() => { arbiter.complete(started[0], { outcome: 'done' }, 1); throw new Error('inner'); })).toThrow('inner');
      expect(arbiter.running().map((u) => u.itemId)).toEqual(['a']);
    });
    expect(arbiter.running().map((u) => u.itemId)).toEqual(['a']);
    expect(host.db.prepare('SELECT item_id FROM claims').pluck().all()).toEqual(['a']);
    host.close();
  });

  it('writes an open run\'s totals before each commit, so a crash keeps what the run had done', () => {
    const host = newHost();
    const started: RunningUnit[] = [];
    const arbiter = newArbiter(host, started);
    host.transaction(() => { for (const [id, t] of [['a', 10], ['b', 5], ['c', 1]] as const) addItem(host, id, t); arbiter.fill(0); });
    host.transaction(() => { arbiter.complete(started[0], { outcome: 'done' }, 5); arbiter.fill(5); });
    // b continues a's run (same operation and channel on the slot): still open, one item done.
    expect(started.map((u) => u.runId)).toEqual([started[0].runId, started[0].runId]);
    expect(host.db.prepare('SELECT outcome, items_done FROM runs WHERE id = ?').get(started[0].runId)).toEqual({ outcome: 'running', items_done: 1 });
    host.transaction(() => { arbiter.complete(started[1], { outcome: 'failed', code: 'ENGINE_CRASHED' }, 9); arbiter.fill(9); });
    expect(host.db.prepare('SELECT outcome, items_done, items_failed FROM runs WHERE id = ?').get(started[0].runId)).toEqual({ outcome: 'running', items_done: 1, items_failed: 1 });
    host.close();
  });

  it('forgets remembered rows when another process commits: a CLI retry is seen by the next run-now', () => {
    const host = newHost();
    const arbiter = newArbiter(host, []);
    host.transaction(() => {
      addItem(host, 'a', 10);
      arbiter.reconfigure({ retry: { maxAttempts: 1, baseS: 30, maxS: 900, jitter: 0 } });
      arbiter.recordFailure('transcribe', 'a', 'ENGINE_CRASHED', 'retry', 0);
    });
    expect(host.work.row('transcribe', 'a')!.state).toBe('deferred');
    expect(arbiter.channelCandidate('transcribe', 'c1')).toBeUndefined();
    const other = new Host({ databaseFile: host.db.name, clock: new VirtualClock(0) });
    expect(retryWork(other.uow, other.work, { item: 'a', operation: 'transcribe' }, 1)).toBe(1);
    other.close();
    expect(arbiter.channelCandidate('transcribe', 'c1')?.itemId).toBe('a');
    host.close();
  });
});
