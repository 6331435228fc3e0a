// A unit whose inputs changed under it (INPUT_CHANGED) settles as requeued (docs/architecture.md
// "Requeued units"): its claim is released, its work derived again with no attempt counted, and
// its run counts it neither done nor failed, so the run stays succeeded without "1 item failed".
import { afterEach, expect, it } from 'vitest';
import { arbiterLibrary, removeArbiterLibraries } from './fixtures/arbiter-library';

afterEach(() => removeArbiterLibraries());

it('releases a requeued unit, counts no attempt and no failure, and picks it again', () => {
  const { host, arbiter, started } = arbiterLibrary('requeued');
  expect(started.map((u) => `${u.operation} ${u.itemId}`)).toEqual(['transcribe a']);
  const first = started[0];
  host.transaction(() => {
    const completion = arbiter.complete(first, { outcome: 'requeued', code: 'INPUT_CHANGED', params: { item: 'a' } }, 5);
    expect(completion.failedTerminally).toBe(false);
  });
  expect(host.work.row('transcribe', 'a')).toMatchObject({ state: 'missing', ready: 1, claimed: 0, attempts: 0, deferral_kind: null });
  expect(host.db.prepare('SELECT COUNT(*) AS n FROM claims').get()).toEqual({ n: 0 });
  const logs = host.db.prepare('SELECT level, text FROM run_logs WHERE run_id = ?').all(first.runId) as { level: string; text: string }[];
  expect(logs).toEqual([{ level: 'info', text: 'transcribe of "a" requeued: INPUT_CHANGED (its inputs changed while it ran; it runs again with the new ones)' }]);
  // Keyed at its source, so the window says it in the reader's language; the item's id and title both ride along.
  expect(host.db.prepare('SELECT key, params FROM run_logs WHERE run_id = ?').all(first.runId)).toEqual([
    { key: 'unitRequeued', params: JSON.stringify({ operation: 'transcribe', item: 'a', title: 'a', code: 'INPUT_CHANGED' }) },
  ]);

  // Picked again on the same slot (the stretch continues), then done: the run closes succeeded, 1 done, 0 failed.
  host.transaction(() => { started.push(...arbiter.fill(6)); });
  expect(started.map((u) => `${u.operation} ${u.itemId}`)).toEqual(['transcribe a', 'transcribe a']);
  host.transaction(() => {
    arbiter.complete(started[1], { outcome: 'done' }, 9);
    arbiter.fill(9);
  });
  const runs = host.db.prepare('SELECT outcome, reason_code, items_done, items_failed FROM runs WHERE operation = ? ORDER BY id').all('transcribe');
  expect(runs.at(-1)).toEqual({ outcome: 'succeeded', reason_code: null, items_done: 1, items_failed: 0 });
  host.close();
});
