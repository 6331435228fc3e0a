// The window's languages: every reason code has a sentence in English and Hungarian (the tables are
// typed against the code list; this also checks them at run time), sentences carry their
// parameters and leave out a missing one, an unknown code is shown raw, the messages of both
// languages have the same keys, and dates, numbers and durations follow the reader's locale.
import { describe, expect, it } from 'vitest';
import { REASON_CODES } from '../../src-shared/reasons/codes';
import { REASONS_EN } from '../../src-renderer/src/i18n/reasons-en';
import { REASONS_HU } from '../../src-renderer/src/i18n/reasons-hu';
import { en } from '../../src-renderer/src/i18n/en';
import { hu } from '../../src-renderer/src/i18n/hu';
import { formattersFor } from '../../src-renderer/src/i18n/format';
import type { SentenceContext } from '../../src-renderer/src/i18n/sentence-kit';
import { describeReason } from '../../src-renderer/src/i18n/index';

const context = (locale: string): SentenceContext => ({ f: formattersFor(locale, () => new Date(0)), op: (id) => `«${id}»`, lane: (id) => `‹${id}›` });
const en_ = (code: keyof typeof REASONS_EN, p: Record<string, unknown> = {}) => REASONS_EN[code](p, context('en'));
const hu_ = (code: keyof typeof REASONS_HU, p: Record<string, unknown> = {}) => REASONS_HU[code](p, context('hu'));

function keys(o: object, prefix = ''): string[] {
  return Object.entries(o).flatMap(([k, v]) => (typeof v === 'string' ? [`${prefix}${k}`] : keys(v as object, `${prefix}${k}.`))).sort();
}

describe('reason sentences', () => {
  it('says the lane that would take the work first, and a lane that cannot run it only after "Also:"', () => {
    const reason = { code: 'LANE_PAUSED', params: { lane: 'cpu', also: [{ code: 'PREFLIGHT_FAILED', params: { lane: 'gpu', code: 'NO_USABLE_GPU' } }] } };
    expect(describeReason(reason, 'en', context('en')).sentence).toBe(
      'The ‹cpu› lane is paused: nothing new starts on it until you resume it. Also: The engine on the ‹gpu› lane failed its check (NO_USABLE_GPU).');
    expect(describeReason(reason, 'hu', context('hu')).sentence).toMatch(/^A\(z\) ‹cpu› sáv szüneteltetve: .* Továbbá: /);
    expect(describeReason({ code: 'LANE_PAUSED', params: { lane: 'cpu' } }, 'en', context('en')).sentence).not.toMatch(/Also/);
    // The gpu lane without a GPU: one sentence that agrees with the setting.
    expect(en_('LANE_NO_SLOTS', { lane: 'gpu', setting: 1, code: 'NO_USABLE_GPU' })).toBe(
      'The ‹gpu› lane cannot run here: no usable GPU was found, so the 1 slot set in Settings (lanes.gpu.slots) cannot be used.');
  });

  it('has one in each language for every code, none empty, none leaking "undefined"', () => {
    for (const code of REASON_CODES) {
      for (const [name, table] of [['en', REASONS_EN], ['hu', REASONS_HU]] as const) {
        const s = table[code]({}, context(name));
        expect(s, `${name} ${code}`).toMatch(/\S/);
        expect(s, `${name} ${code}`).not.toMatch(/\bundefined\b|\bnull\b|\bNaN\b/);
      }
    }
    expect(Object.keys(REASONS_EN).sort()).toEqual([...REASON_CODES].sort());
    expect(Object.keys(REASONS_HU).sort()).toEqual([...REASON_CODES].sort());
  });

  it('carries the parameters into the sentence, with the names of the reader’s language', () => {
    expect(en_('RUNNING', { run: 42 })).toBe('Running now, in run #42.');
    expect(hu_('RUNNING', { run: 42 })).toBe('Most fut, a(z) #42 futásban.');
    expect(en_('BLOCKED_ON', { operation: 'attribute-words' })).toBe('Waits for «attribute-words»: that has to finish for this item first.');
    expect(en_('LANE_PAUSED', { lane: 'cpu' })).toBe('The ‹cpu› lane is paused: nothing new starts on it until you resume it.');
    expect(hu_('LANE_PAUSED', { lane: 'cpu' })).toBe('A(z) ‹cpu› sáv szüneteltetve: semmi új nem indul rajta, amíg nem folytatod.');
    expect(en_('FAILED', { code: 'ENGINE_TIMEOUT', attempts: 3 })).toBe('Gave up after 3 attempts (ENGINE_TIMEOUT); it waits until you retry it.');
    expect(en_('FAILED', { attempts: 1 })).toBe('Gave up after 1 attempt; it waits until you retry it.');
    expect(hu_('FAILED', { code: 'ENGINE_TIMEOUT', attempts: 3 })).toBe('Feladva 3 kísérlet után (ENGINE_TIMEOUT); addig vár, amíg újra nem indítod.');
    expect(en_('LANE_BUSY', { ahead: 1200 })).toBe('Every slot on its lane is busy; 1,200 ready items come first.');
    expect(hu_('LANE_BUSY', { ahead: 1200 })).toBe('A sáv minden helye foglalt; előbb 1200 indulásra kész elem következik.');
    expect(en_('SPEND_CAP', { capUsd: 5 })).toBe('The spend cap of $5.00 is reached; paid work waits.');
    expect(hu_('SPEND_CAP', { capUsd: 5 })).toMatch(/^Elérte a költségkeretet \(5,00\sUSD\)/);
    expect(en_('PREFLIGHT_FAILED', { lane: 'gpu', code: 'NO_USABLE_GPU' })).toBe('The engine on the ‹gpu› lane failed its check (NO_USABLE_GPU).');
    expect(en_('DISK_GATE', { mode: 'shut' })).toMatch(/nearly full/);
    expect(hu_('DISK_GATE', { mode: 'draining' })).toMatch(/Kevés a szabad hely/);
  });

  it('gives times in the reader’s format', () => {
    const t = Date.UTC(2024, 2, 5, 14, 30) / 1000;
    expect(REASONS_EN.BACKOFF_UNTIL({ t }, context('en'))).toMatch(/next try is at Mar 5, \d\d:\d\d (AM|PM)/);
    expect(REASONS_HU.BACKOFF_UNTIL({ t }, context('hu'))).toMatch(/következő kísérlet ideje: márc\. 5\. \d\d:\d\d/);
  });
});

describe('messages', () => {
  it('has the same keys in both languages (the types insist; this shows it at run time)', () => {
    expect(keys(hu)).toEqual(keys(en));
  });
});

describe('formatters', () => {
  it('write numbers, money, sizes, clocks and spans per locale', () => {
    const e = formattersFor('en');
    const h = formattersFor('hu');
    expect(e.count(78000)).toBe('78,000');
    expect(h.count(78000)).toBe('78\u00a0000');
    expect(e.usd(1.5)).toBe('$1.50');
    expect(e.bytes(72_100_000_000)).toBe('72.1 GB');
    expect(h.bytes(72_100_000_000)).toBe('72,1 GB');
    // Plain bytes with their plural: never "0 byte".
    expect([e.bytes(0), e.bytes(1), e.bytes(500), e.bytes(50_000_000_000)]).toEqual(['0 bytes', '1 byte', '500 bytes', '50 GB']);
    expect(e.clock(7.9)).toBe('0:07');
    expect(e.clock(3723)).toBe('1:02:03');
    expect(e.span(45)).toBe('45 sec');
    expect(e.span(12 * 60)).toBe('12 min');
    expect(e.span(3 * 3600 + 20 * 60)).toBe('3 hr 20 min');
    expect(e.span(4 * 86400 + 6 * 3600)).toBe('4 days 6 hr');
    expect(h.span(3 * 3600 + 20 * 60)).toBe('3 ó 20 p');
  });
});
