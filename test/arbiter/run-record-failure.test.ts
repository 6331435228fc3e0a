// A failure to write the run record never turns a committed success into a failure: the output,
// its state and the claim's release stand, and the arbiter keeps dispatching.
import { afterEach, expect, it } from 'vitest';
import { arbiterLibrary, removeArbiterLibraries } from './fixtures/arbiter-library';

afterEach(() => removeArbiterLibraries());

it('keeps a finished unit done when its run row cannot be written', () => {
  const { host, arbiter, started } = arbiterLibrary('runrec', { items: ['a', 'b'] });
  expect(started.map((u) => u.itemId)).toEqual(['a']);
  host.db.exec("CREATE TRIGGER refuse_run_updates BEFORE UPDATE ON runs BEGIN SELECT RAISE(ABORT, 'disk full'); END;");
  host.transaction(() => {
    arbiter.complete(started[0], { outcome: 'done' }, 5);
    started.push(...arbiter.fill(5));
  });
  expect(host.work.row('transcribe', 'a')!.state).toBe('done');
  expect(host.work.row('diarize', 'a')!.state).toBe('missing');
  expect(arbiter.runRecordFailures).toBeGreaterThan(0);
  expect(started.map((u) => u.itemId)).toEqual(['a', 'b']);
  expect(host.db.prepare('SELECT COUNT(*) AS n FROM claims').get()).toEqual({ n: 1 });
  host.close();
});
