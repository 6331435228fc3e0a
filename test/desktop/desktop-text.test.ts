// The desktop shell's languages: the OS's preferred language picks the table, and every hold
// reads as words in both.
import { describe, expect, it } from 'vitest';
import { DESKTOP_TEXT, formattersFor, pickLocale } from '../../src-main/shells/electron/text/index';

describe('pickLocale', () => {
  it('takes the first preferred language Backlot speaks, else English', () => {
    expect(pickLocale(['hu-HU', 'en-US'])).toBe('hu');
    expect(pickLocale(['de-DE', 'hu'])).toBe('hu');
    expect(pickLocale(['en_GB'])).toBe('en');
    expect(pickLocale(['fr-FR'])).toBe('en');
    expect(pickLocale([])).toBe('en');
  });
});

describe('hold sentences', () => {
  const holds = [
    { code: 'LANE_PAUSED', params: {} }, { code: 'LANE_PAUSED', params: { all: true } }, { code: 'LANE_NO_SLOTS', params: {} },
    { code: 'QUIET_HOURS', params: { until: 7 * 3600 } }, { code: 'SPEND_CAP', params: { capUsd: 2.5 } }, { code: 'GPU_YIELD', params: {} },
    { code: 'DISK_GATE', params: { mode: 'shut' } }, { code: 'DISK_GATE', params: { mode: 'draining' } }, { code: 'DISK_FULL', params: {} },
    { code: 'NETWORK_COOLDOWN', params: { platform: 'youtube', until: 3600 } }, { code: 'PREFLIGHT_FAILED', params: { code: 'ENGINE_NOT_INSTALLED' } },
  ];
  it('say each known hold differently in each language, and never "undefined"', () => {
    for (const text of Object.values(DESKTOP_TEXT)) {
      const f = formattersFor(text.locale, 'UTC');
      const sentences = holds.map((h) => text.hold(h, f));
      expect(new Set(sentences).size, text.locale).toBe(holds.length);
      for (const s of sentences) expect(s).not.toMatch(/undefined|NaN|held \(|visszatartva \(/);
    }
    const f = formattersFor('en', 'UTC');
    expect(DESKTOP_TEXT.en.hold({ code: 'QUIET_HOURS', params: { until: 7 * 3600 } }, f)).toBe('quiet hours until 7:00 AM');
    expect(DESKTOP_TEXT.hu.hold({ code: 'QUIET_HOURS', params: { until: 7 * 3600 } }, formattersFor('hu', 'UTC'))).toBe('csendes órák 7:00-ig');
  });
});
