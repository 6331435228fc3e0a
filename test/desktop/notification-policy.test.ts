// The notification policy: which notices notify (per-kind switches), how bursts coalesce into one
// notification with a count, where a click goes, and the sentence each notification shows.
import { describe, expect, it } from 'vitest';
import { NotificationCoalescer, kindView, notificationText, targetOf, DEFAULT_COALESCING } from '../../src-main/shells/electron/notification-policy';
import { DESKTOP_TEXT, formattersFor } from '../../src-main/shells/electron/text/index';
import { NOTICE_KINDS, type NoticeKind } from '../../src-shared/notices/notice';
import { notice } from './fixtures';

const all = () => true;
const { quietS, maxHoldS, minIntervalS } = DEFAULT_COALESCING;

describe('NotificationCoalescer', () => {
  it('turns a burst of 500 failures into one notification that counts them', () => {
    const c = new NotificationCoalescer();
    for (let i = 0; i < 500; i++) c.offer(notice('run-failed', { item: `i${i}`, operation: 'transcribe' }, 1000), 1000 + i * 0.001, all);
    const lastAt = 1000 + 499 * 0.001;
    expect(c.takeDue(lastAt + quietS - 0.01)).toEqual([]);
    const shown = c.takeDue(lastAt + quietS);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ kind: 'run-failed', count: 500 });
    expect(shown[0].notices).toHaveLength(DEFAULT_COALESCING.keepPerGroup);
    expect(c.nextDueAt()).toBeNull();
    expect(c.takeDue(lastAt + 1000)).toEqual([]);
  });

  it('shows a single notice once it has been quiet for a moment', () => {
    const c = new NotificationCoalescer();
    c.offer(notice('disk-full'), 50, all);
    expect(c.nextDueAt()).toBe(50 + quietS);
    expect(c.takeDue(50 + quietS)).toMatchObject([{ kind: 'disk-full', count: 1 }]);
  });

  it('a steady stream still shows by the longest hold, then at most once per interval', () => {
    const c = new NotificationCoalescer();
    // One failure every second, without a quiet gap, for three minutes.
    const shownAt: number[] = [];
    const counts: number[] = [];
    for (let t = 0; t <= 180; t++) {
      for (const n of c.takeDue(t)) { shownAt.push(t); counts.push(n.count); }
      c.offer(notice('run-failed', {}, t), t, all);
    }
    expect(shownAt[0]).toBe(maxHoldS);
    for (let i = 1; i < shownAt.length; i++) expect(shownAt[i] - shownAt[i - 1]).toBeGreaterThanOrEqual(minIntervalS);
    expect(shownAt.length).toBe(3);
    // Nothing is lost: every notice offered before the last show is counted in some notification.
    expect(counts.reduce((a, b) => a + b, 0)).toBe(shownAt[shownAt.length - 1]);
  });

  it('keeps kinds apart: each kind is its own notification, in the order it opened', () => {
    const c = new NotificationCoalescer();
    c.offer(notice('cooldown-opened', { platform: 'youtube' }), 10, all);
    c.offer(notice('run-failed'), 11, all);
    c.offer(notice('cooldown-opened', { platform: 'vimeo' }), 11.5, all);
    const shown = c.takeDue(100);
    expect(shown.map((n) => [n.kind, n.count])).toEqual([['cooldown-opened', 2], ['run-failed', 1]]);
  });

  it('drops a kind that is switched off, and forgets what waited when it is switched off later', () => {
    const c = new NotificationCoalescer();
    const off = new Set<NoticeKind>(['backlog-finished']);
    const enabled = (k: NoticeKind) => !off.has(k);
    expect(c.offer(notice('backlog-finished'), 1, enabled)).toBe(false);
    expect(c.offer(notice('run-failed'), 1, enabled)).toBe(true);
    expect(c.offer(notice('disk-gate-shut'), 1, enabled)).toBe(true);
    c.drop('run-failed');
    expect(c.takeDue(100).map((n) => n.kind)).toEqual(['disk-gate-shut']);
  });

  it('every kind has a switch that works', () => {
    for (const kind of NOTICE_KINDS) {
      const c = new NotificationCoalescer();
      expect(c.offer(notice(kind), 1, (k) => k !== kind)).toBe(false);
      expect(c.nextDueAt()).toBeNull();
    }
  });
});

describe('where a click goes', () => {
  it('to the notices’ own target when they agree (keys in any order), else the kind’s view', () => {
    const a = notice('run-failed', {}, 1, { view: 'runs', run: 7 });
    const b = { ...a, target: { run: 7, view: 'runs' } as const };
    expect(targetOf('run-failed', [a, b])).toEqual({ view: 'runs', run: 7 });
    const c = notice('run-failed', {}, 1, { view: 'item', item: 'x' });
    expect(targetOf('run-failed', [a, c])).toEqual({ view: 'runs' });
  });

  it('every kind has a view that deals with it', () => {
    for (const kind of NOTICE_KINDS) expect(kindView(kind).view).toMatch(/^(runs|lanes|settings|library)$/);
  });
});

describe('notification sentences', () => {
  const en = DESKTOP_TEXT.en;
  const hu = DESKTOP_TEXT.hu;
  const fEn = formattersFor('en', 'UTC');
  const fHu = formattersFor('hu', 'UTC');

  it('names the thing in one sentence, in English and Hungarian', () => {
    const failed = { kind: 'run-failed' as const, count: 1, target: { view: 'runs' as const }, notices: [notice('run-failed', { operation: 'transcribe', title: 'Episode 4', attempts: 3 })] };
    expect(notificationText(failed, en, fEn)).toEqual({ title: 'Work failed', body: 'Transcription failed for “Episode 4” after 3 attempts.' });
    expect(notificationText(failed, hu, fHu)).toEqual({ title: 'Sikertelen munka', body: 'Átírás: „Episode 4” 3 próbálkozás után sem sikerült.' });
  });

  it('a coalesced burst says how many', () => {
    const notices = Array.from({ length: 3 }, (_, i) => notice('run-failed', { operation: 'download', item: `i${i}` }));
    const burst = { kind: 'run-failed' as const, count: 500, target: { view: 'runs' as const }, notices };
    expect(notificationText(burst, en, fEn).body).toBe('500 download jobs failed after their last retry.');
    expect(notificationText(burst, hu, fHu).body).toBe('500 feladat (letöltés) az utolsó újrapróbálkozás után sem sikerült.');
  });

  it('uses the parameters it is given: free space, platform and time, spend cap, backlog size', () => {
    const one = (kind: NoticeKind, params: Record<string, unknown>) => ({ kind, count: 1, target: kindView(kind), notices: [notice(kind, params)] });
    expect(notificationText(one('disk-gate-shut', { freeBytes: 4_200_000_000 }), en, fEn).body).toBe('The library disk has only 4.2 GB free, so media downloads are stopped.');
    expect(notificationText(one('cooldown-opened', { platform: 'YouTube', until: 3600 * 14 + 300 }), en, fEn).body).toBe('YouTube refused Backlot; its downloads and syncs wait until 2:05 PM.');
    expect(notificationText(one('spend-cap-reached', { capUsd: 5, window: 'month' }), en, fEn).body).toBe('Remote work stopped at the spend cap of $5.00 for this month.');
    expect(notificationText(one('backlog-finished', { operation: 'transcribe', done: 1200 }), en, fEn).body).toBe('The transcription backlog is finished: 1,200 items done.');
    expect(notificationText(one('preflight-failed', { lane: 'gpu', code: 'NO_USABLE_GPU' }), hu, fHu).body).toBe('GPU sáv: nem tud elindulni, mert a motorjai nem mentek át az ellenőrzésen (NO_USABLE_GPU).');
  });

  it('never prints a missing parameter as "undefined", for any kind, count or language', () => {
    for (const text of [en, hu]) {
      const f = formattersFor(text.locale, 'UTC');
      for (const kind of NOTICE_KINDS) {
        for (const count of [1, 2]) {
          const shown = notificationText({ kind, count, target: kindView(kind), notices: [notice(kind, {}), notice(kind, {})].slice(0, count) }, text, f);
          expect(shown.title.length, `${text.locale} ${kind}`).toBeGreaterThan(3);
          expect(shown.body, `${text.locale} ${kind} ${count}`).toMatch(/^\S.*[.]$/);
          expect(shown.body).not.toMatch(/undefined|NaN|null/);
        }
      }
    }
  });
});
