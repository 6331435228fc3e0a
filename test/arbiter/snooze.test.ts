// A failure that snoozes (docs/architecture.md "Failures"): a platform's daily cap says "retry after
// T" as data (`snoozeUntil`), and the settle waits the work until T as backoff with the failure's
// code, no attempt counted; the arbiter wakes for it at T and picks it again.
import { afterEach, expect, it } from 'vitest';
import { downloadFailure } from '../../src-main/engines/acquisition-kit';
import type { JobContext } from '../../src-main/engines/adapter';
import { arbiterLibrary, removeArbiterLibraries } from './fixtures/arbiter-library';

afterEach(() => removeArbiterLibraries());

it("a download at its platform's daily cap snoozes as data, and no other failure writes work itself", () => {
  const job = { channel: { kind: 'platform', platform: 'youtube', source: 'https://www.youtube.com/@c' }, item: { id: 'a', url: 'https://www.youtube.com/watch?v=a' }, env: { dataDir: '/nowhere' } } as unknown as JobContext;
  expect(downloadFailure(job, { code: 'DAILY_CAP', params: { until: 86_400 }, diagnostic: '' })).toEqual({ disposition: 'requeue', snoozeUntil: 86_400 });
  expect(downloadFailure(job, { code: 'DAILY_CAP', params: {}, diagnostic: '' })).toEqual({ disposition: 'requeue' });
  expect(downloadFailure(job, { code: 'NETWORK_REFUSED', params: { retryAfterS: 30 }, diagnostic: '' })).toEqual({
    disposition: 'requeue', plans: [{ kind: 'politeness-refused', politenessKey: 'youtube', code: 'NETWORK_REFUSED', retryAfterS: 30 }],
  });
});

it('waits a snoozed unit until its instant with no attempt counted, then picks it again', () => {
  const { host, arbiter, started } = arbiterLibrary('snooze', { leaf: 'all' });
  expect(started.map((u) => `${u.operation} ${u.itemId}`)).toEqual(['transcribe a']);
  host.transaction(() => {
    const completion = arbiter.complete(started[0], { outcome: 'failed', code: 'DAILY_CAP', disposition: 'requeue', snoozeUntil: 500 }, 5);
    expect(completion.failedTerminally).toBe(false);
  });
  expect(host.work.row('transcribe', 'a')).toMatchObject({ claimed: 0, attempts: 0, deferral_kind: 'backoff', deferral_until: 500, deferral_code: 'DAILY_CAP' });
  expect(arbiter.nextWake(6)).toBe(500);
  host.transaction(() => { arbiter.advance(100); started.push(...arbiter.fill(100)); });
  expect(started).toHaveLength(1);
  host.transaction(() => { arbiter.advance(500); started.push(...arbiter.fill(500)); });
  expect(started.map((u) => `${u.operation} ${u.itemId}`)).toEqual(['transcribe a', 'transcribe a']);
  host.close();
});
