// Every progress key an engine can send has its English and Hungarian message, and each is said in
// both languages from its parameters (counts with plurals, sizes); a plain message and an unknown key
// show the engine's English text (issue 20, docs/i18n.md "Progress messages").
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createI18n } from 'vue-i18n';
import { en, type Messages } from '../../src-renderer/src/i18n/en';
import { hu } from '../../src-renderer/src/i18n/hu';
import { formattersFor } from '../../src-renderer/src/i18n/format';
import { describeReason } from '../../src-renderer/src/i18n/index';
import type { LineWords } from '../../src-renderer/src/i18n/log-line';
import { sayProgress } from '../../src-renderer/src/i18n/progress-line';
import { PROGRESS_KEYS, progressMessage, type ProgressKey, type ProgressKeyParams } from '../../src-shared/runs/progress-keys';
import { describeProgress } from '../../src-main/engines/download-progress';
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

/** One example message per key: a key added without an example here is a compile error. */
const EXAMPLES: { [K in ProgressKey]: ProgressKeyParams<K> } = {
  chunkOf: { chunk: 3, of: 12 },
  chunk: { chunk: 3 },
  diarizeDecoding: {},
  diarizeSegmenting: {},
  diarizeEmbedding: {},
  finished: {},
  scanPages: { pages: 2 },
  downloadReceived: { received: 5_000_000 },
  downloadReceivedSpeed: { received: 5_000_000, speed: 250_000 },
  downloadOf: { received: 5_000_000, total: 20_000_000 },
  downloadOfSpeed: { received: 5_000_000, total: 20_000_000, speed: 250_000, etaS: 60 },
  waitingForHost: { host: 'media.example.org' },
  waitingBetweenDownloads: { waitS: 12 },
  ytdlpStarting: {},
  listing: {},
  listingEntries: { entries: 40 },
  feedFetching: {},
  feedParsing: { bytes: 65_536 },
  fetchingPublisherTranscript: {},
  fetchingPlatformSubtitles: {},
  fetchingSourceTranscript: {},
  converting: { format: 'vtt' },
  digestWhole: {},
  digestPart: { part: 2, of: 3 },
  digestCombining: { round: 1 },
};

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : /\.(ts|mjs)$/.test(p) ? [p] : [];
  });
}

describe('progress keys', () => {
  it('has an English and a Hungarian message for every key, with the same parameters, the Hungarian its own', () => {
    expect(PROGRESS_KEYS.length).toBeGreaterThan(20);
    expect(Object.keys(en.progressMessages).sort()).toEqual([...PROGRESS_KEYS].sort());
    expect(Object.keys(hu.progressMessages).sort()).toEqual([...PROGRESS_KEYS].sort());
    for (const key of PROGRESS_KEYS) {
      expect(hu.progressMessages[key], key).toMatch(/\S/);
      expect(placeholders(hu.progressMessages[key]), key).toEqual(placeholders(en.progressMessages[key]));
      expect(hu.progressMessages[key], key).not.toBe(en.progressMessages[key]);
    }
  });

  it('says every key in English and in Hungarian from its parameters, none left unfilled or the same', () => {
    for (const key of PROGRESS_KEYS) {
      const message = (progressMessage as (k: ProgressKey, p: object) => ReturnType<typeof progressMessage>)(key, EXAMPLES[key]);
      expect(message.text, key).toMatch(/\S/);
      const english = sayProgress(message, say.en);
      const hungarian = sayProgress(message, say.hu);
      expect(english.keyed, key).toBe(true);
      expect(hungarian.keyed, key).toBe(true);
      for (const said of [english.text, hungarian.text]) {
        expect(said, key).not.toMatch(/[{}]/);
        expect(said, key).not.toContain('progressMessages.');
      }
      expect(hungarian.text, key).not.toBe(english.text);
      expect(hungarian.details, key).toBe(`${key} ${JSON.stringify(EXAMPLES[key])}`);
    }
  });

  it('says the chunk, a download and a count as a reader reads them', () => {
    const f = formattersFor('hu');
    expect(progressMessage('chunkOf', { chunk: 3, of: 12 }).text).toBe('chunk 3 of 12');
    expect(sayProgress(progressMessage('chunkOf', { chunk: 3, of: 12 }), say.en).text).toBe('Chunk 3 of 12');
    expect(sayProgress(progressMessage('chunkOf', { chunk: 3, of: 12 }), say.hu).text).toBe('3. szakasz (12 közül)');
    const download = describeProgress(5_000_000, 20_000_000, 250_000);
    expect(download.message.key).toBe('downloadOfSpeed');
    expect(download.message.text).toBe('4.8 MB of 19 MB, 244 KB/s, ETA 60 s');
    expect(sayProgress(download.message, say.hu).text).toBe(`Letöltve: ${f.bytes(5_000_000)} / ${f.bytes(20_000_000)}, ${f.bytes(250_000)}/mp, még 60 mp`);
    expect(describeProgress(100, null, null).message).toEqual({ text: '100 B', key: 'downloadReceived', params: { received: 100 } });
    expect(sayProgress(progressMessage('scanPages', { pages: 1 }), say.en).text).toBe('1 page scanned');
    expect(sayProgress(progressMessage('scanPages', { pages: 2 }), say.en).text).toBe('2 pages scanned');
    expect(sayProgress(progressMessage('listingEntries', { entries: 1 }), say.hu).text).toBe('Eddig 1 bejegyzés');
  });

  it('shows a plain message from an engine, and a key this window does not know, as the English text', () => {
    expect(sayProgress({ text: 'chunk 2/4' }, say.hu)).toEqual({ text: 'chunk 2/4', keyed: false, details: null });
    expect(sayProgress({ text: 'from a newer engine', key: 'somethingNew', params: { n: 1 } }, say.hu)).toEqual({ text: 'from a newer engine', keyed: false, details: 'somethingNew {"n":1}' });
  });

  it('is sent by some engine (no key is left without its source)', () => {
    const text = ['src-main', 'src-shared'].flatMap((d) => sources(d)).filter((f) => !f.endsWith('progress-keys.ts')).map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    expect(PROGRESS_KEYS.filter((k) => !text.includes(`'${k}'`))).toEqual([]);
  });
});
