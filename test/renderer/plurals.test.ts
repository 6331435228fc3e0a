// Plural forms in both languages through vue-i18n's own pluralization (issue 20 item 9,
// docs/i18n.md): "1 channel" / "2 channels", "0 bytes" / "1 byte", Hungarian's singular noun after
// a number, the spend line as a Hungarian sentence, and every setting described in Hungarian.
import { describe, expect, it } from 'vitest';
import { createI18n } from 'vue-i18n';
import { en, type Messages } from '../../src-renderer/src/i18n/en';
import { hu } from '../../src-renderer/src/i18n/hu';
import { formattersFor } from '../../src-renderer/src/i18n/format';
import { ANONYMOUS_SPEAKER } from '../../src-renderer/src/i18n/index';
import { SETTINGS_HU } from '../../src-renderer/src/i18n/settings-hu';
import { SETTINGS, SETTING_KEYS } from '../../src-shared/settings/settings-schema';

function tr(locale: 'en' | 'hu') {
  const i18n = createI18n<[Messages], 'en' | 'hu', false>({ legacy: false, locale, fallbackLocale: 'en', messages: { en, hu }, missingWarn: false, fallbackWarn: false });
  return (key: string, named: Record<string, unknown>, plural?: number) => (plural === undefined ? i18n.global.t(key, named) : i18n.global.t(key, named, plural));
}
const t = { en: tr('en'), hu: tr('hu') };

function strings(o: object, prefix = ''): [string, string][] {
  return Object.entries(o).flatMap(([k, v]) => (typeof v === 'string' ? [[`${prefix}${k}`, v] as [string, string]] : strings(v as object, `${prefix}${k}.`)));
}

describe('plural forms', () => {
  it('picks English singular and plural by count, in two- and three-form messages', () => {
    expect([0, 1, 2].map((n) => t.en('counts.items', { n }, n))).toEqual(['0 items', '1 item', '2 items']);
    expect([1, 2].map((n) => t.en('counts.inChannels', { n }, n))).toEqual(['1 channel', '2 channels']);
    expect([0, 1, 5].map((n) => t.en('speakers.itemsOf', { n }, n))).toEqual(['0 items', '1 item', '5 items']);
    expect(t.en('library.summary', { shown: 1, total: 1 }, 1)).toBe('1 of 1 item');
    expect(t.en('rules.heldCount', { n: 3 }, 3)).toBe('3 units');
    expect(t.en('rules.previewLibrary', { items: t.en('counts.items', { n: 6 }, 6), channels: t.en('counts.inChannels', { n: 1 }, 1) })).toBe('6 items in 1 channel.');
  });

  it('keeps the Hungarian noun singular after a number', () => {
    expect([0, 1, 2].map((n) => t.hu('counts.items', { n }, n))).toEqual(['0 elem', '1 elem', '2 elem']);
    expect(t.hu('rules.previewLibrary', { items: t.hu('counts.items', { n: 6 }, 6), channels: t.hu('counts.inChannels', { n: 2 }, 2) })).toBe('6 elem 2 csatornában.');
    expect(t.hu('rules.heldCount', { n: 3 }, 3)).toBe('3 egység');
  });

  it('writes bytes out with their plural in both languages', () => {
    expect([0, 1, 2].map((n) => formattersFor('en').bytes(n))).toEqual(['0 bytes', '1 byte', '2 bytes']);
    expect(formattersFor('hu').bytes(1)).toBe('1 bájt');
    expect(formattersFor('en').bytes(50e9)).toBe('50 GB');
  });

  it('gives every English message that counts ({n}) a plural form, and Hungarian the same number of forms', () => {
    const huOf = new Map(strings(hu));
    for (const [key, text] of strings(en)) {
      if (!text.includes('{n}')) continue;
      expect(text, key).toContain(' | ');
      expect(huOf.get(key)?.split(' | ').length, key).toBe(text.split(' | ').length);
    }
  });
});

describe('sentences that are Hungarian, not translated words', () => {
  it('says the spend line as a sentence per window', () => {
    const spent = formattersFor('hu').usd(0);
    expect(t.hu('work.spendLine.month', { spent })).toBe(`Ebben a hónapban ${spent} ment el`);
    expect(t.en('work.spendLine.week', { spent: '$0.00' })).toBe('$0.00 spent this week');
  });

  it('names a speaker nobody named in the reader’s language', () => {
    const m = ANONYMOUS_SPEAKER.exec('Speaker 3');
    expect(m?.[1]).toBe('3');
    expect(t.hu('speakers.anonymous', { number: m![1] })).toBe('3. beszélő');
    expect(ANONYMOUS_SPEAKER.test('Speaker Anna')).toBe(false);
  });

  it('describes every setting in Hungarian, none left as the host’s English', () => {
    expect(Object.keys(SETTINGS_HU).sort()).toEqual([...SETTING_KEYS].sort());
    for (const key of SETTING_KEYS) {
      const text = SETTINGS_HU[key];
      expect(text.label, key).toMatch(/\S/);
      expect(text.description, key).toMatch(/\S/);
      expect(text.description, key).not.toBe(SETTINGS[key].description);
      expect(text.description, key).not.toMatch(/undefined/);
    }
  });
});
