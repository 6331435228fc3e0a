// Every run log key a producer can emit has its English and Hungarian message, and a keyed line is
// said in the reader's language with plural forms, sizes and reason sentences, falling back to the
// stored English text for a key the window does not know (issue 20 items 8 and 9, docs/i18n.md).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createI18n } from 'vue-i18n';
import { en, type Messages } from '../../src-renderer/src/i18n/en';
import { hu } from '../../src-renderer/src/i18n/hu';
import { formattersFor } from '../../src-renderer/src/i18n/format';
import { describeReason } from '../../src-renderer/src/i18n/index';
import { sayLogLine, type LineWords } from '../../src-renderer/src/i18n/log-line';
import { LOG_KEYS, logLine } from '../../src-shared/runs/log-keys';
import { isReasonCode } from '../../src-shared/reasons/codes';

function words(locale: 'en' | 'hu'): LineWords {
  const i18n = createI18n<[Messages], 'en' | 'hu', false>({ legacy: false, locale, fallbackLocale: 'en', messages: { en, hu }, missingWarn: false, fallbackWarn: false });
  const f = formattersFor(locale);
  const t = (key: string, named: Record<string, unknown> = {}, plural?: number) => (plural === undefined ? i18n.global.t(key, named) : i18n.global.t(key, named, plural));
  const op = (id: string) => t(`operations.${id}`);
  const lane = (id: string) => t(`lanes.${id}`);
  return { t, f, op, lane, reason: (code) => (isReasonCode(code) ? describeReason({ code }, locale, { f, op, lane }).sentence : undefined) };
}
const say = { en: words('en'), hu: words('hu') };
const placeholders = (m: string) => [...m.matchAll(/\{(\w+)\}/g)].map((x) => x[1]).sort();

/** Every .ts file under a folder. */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('run log keys', () => {
  it('has an English and a Hungarian message for every key, with the same parameters, the Hungarian its own', () => {
    expect(LOG_KEYS.length).toBeGreaterThan(30);
    for (const key of LOG_KEYS) {
      const english = en.runLog.lines[key];
      const hungarian = hu.runLog.lines[key];
      expect(english, key).toMatch(/\S/);
      expect(hungarian, key).toMatch(/\S/);
      expect(placeholders(hungarian), key).toEqual(placeholders(english));
      // "{file}: {code}" is the same in both languages: its words are its parameters'.
      if (/\p{L}{3}/u.test(english.replace(/\{\w+\}/g, ''))) expect(hungarian, key).not.toBe(english);
    }
    expect(Object.keys(en.runLog.lines).sort()).toEqual([...LOG_KEYS].sort());
    expect(Object.keys(hu.runLog.lines).sort()).toEqual([...LOG_KEYS].sort());
  });

  it('is emitted by some producer (no key is left without its source)', () => {
    const text = ['src-main', 'src-shared'].flatMap((d) => sources(d)).filter((f) => !f.endsWith('log-keys.ts')).map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    expect(LOG_KEYS.filter((k) => !text.includes(`'${k}'`))).toEqual([]);
  });

  it('says counts with their plural: "1 segment" / "2 segments", Hungarian singular after a number', () => {
    const one = logLine('wordsAttributed', { segments: 1, speakers: 0 });
    expect(one.text).toBe('1 segment, 0 speakers');
    expect(sayLogLine(one, say.en)).toMatchObject({ text: '1 segment, 0 speakers.', keyed: true, details: 'wordsAttributed {"segments":1,"speakers":0}' });
    expect(sayLogLine(logLine('wordsAttributed', { segments: 2, speakers: 1 }), say.en).text).toBe('2 segments, 1 speaker.');
    expect(sayLogLine(logLine('wordsAttributed', { segments: 2, speakers: 1 }), say.hu).text).toBe('2 szegmens, 1 beszélő.');
    expect(sayLogLine(logLine('digestKept', { segments: 1234, moments: 3 }), say.hu).text).toBe(`${formattersFor('hu').count(1234)} szegmens, ebből 3 pillanat maradt meg.`);
    expect(sayLogLine(logLine('downloaded', { bytes: 1 }), say.en).text).toBe('Downloaded 1 byte.');
    expect(sayLogLine(logLine('downloaded', { bytes: 50e9 }), say.hu).text).toBe(`Letöltve: ${formattersFor('hu').bytes(50e9)}.`);
  });

  it('names the pool worker a keyed line came from (docs/pools.md "Log lines on the host")', () => {
    const line = { text: '[studio-1-abc] downloaded 1 bytes', key: 'downloaded', params: { bytes: 1, onWorker: 'studio-1-abc' } };
    expect(sayLogLine(line, say.en).text).toBe('[studio-1-abc] Downloaded 1 byte.');
    expect(sayLogLine(line, say.hu).text).toBe(`[studio-1-abc] Letöltve: ${formattersFor('hu').bytes(1)}.`);
  });

  it("says an item by its title and a code through the reason sentences, keeping the id in the params", () => {
    const line = logLine('unitRequeued', { operation: 'attribute-words', item: 'folder:abc', title: 'Heti időjárás', code: 'INPUT_CHANGED' });
    expect(line.params).toMatchObject({ item: 'folder:abc', title: 'Heti időjárás' });
    const hungarian = sayLogLine(line, say.hu).text;
    expect(hungarian).toBe(`„Heti időjárás” – ${hu.operations['attribute-words']}: visszakerül a sorba. A bemenete futás közben megváltozott; az újjal készül el újra.`);
    expect(hungarian).not.toContain('INPUT_CHANGED');
    expect(hungarian).not.toContain('folder:abc');
    // A code without a sentence is shown as it is.
    expect(sayLogLine(logLine('unitFailed', { operation: 'transcribe', item: 'i', title: 'T', code: 'SOMETHING_NEW' }), say.en).text).toBe('Transcribe of “T” failed: SOMETHING_NEW');
  });

  it('falls back to the stored English text for a plain line and an unknown key', () => {
    expect(sayLogLine({ text: 'an old line', key: null, params: null }, say.hu)).toEqual({ text: 'an old line', keyed: false, details: null });
    expect(sayLogLine({ text: 'from a newer engine', key: 'somethingNew', params: { n: 1 } }, say.hu)).toEqual({ text: 'from a newer engine', keyed: false, details: 'somethingNew {"n":1}' });
  });

  it('keeps the English text of the lines tests and bug reports read', () => {
    expect(logLine('checkpointNone').text).toBe('checkpoint: none, starting at 0.00 s');
    expect(logLine('checkpointResumed', { chunk: 2, chunks: 2, atS: 60 }).text).toBe('checkpoint: resuming at chunk 2 (60.00 s), 2 chunk(s) already done');
    expect(logLine('chunkSilent', { chunk: 0, startS: 0, endS: 30 }).text).toBe('chunk 0 done: 0.00-30.00 s, silent');
    expect(logLine('scanSummaryUnreadable', { added: 1, changed: 0, removed: 0, unchanged: 2, unreadable: 2 }).text).toBe('1 added, 0 changed, 0 removed, 2 unchanged, 2 unreadable');
    expect(logLine('audioTrack', { track: 2, of: 2, why: 'first-with-sound' }).text).toBe('decoding audio track 2 of 2 (the first with sound; the default track is silent or none is marked)');
  });
});
