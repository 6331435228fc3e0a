// Sentence terms for similarity: lower-cased words without accents, punctuation or the language's
// stop words (the stopword package's lists, picked by the transcript's BCP 47 language). The
// package is required on first use: an ES import of it costs a digest engine's start several times
// more (docs/benchmarks.md "The command line", session 7).
import type StopwordLists from 'stopword';
import { lazyRequire } from '../system/lazy-require';

const stopwordLists = lazyRequire<typeof StopwordLists>('stopword');

/** ISO 639-1 (a transcript's language) to the ISO 639-3 keys of the stopword lists. */
const ISO_639_3: Record<string, string> = {
  af: 'afr', ar: 'ara', bn: 'ben', br: 'bre', bg: 'bul', ca: 'cat', cs: 'ces', da: 'dan', de: 'deu', el: 'ell',
  en: 'eng', eo: 'epo', et: 'est', eu: 'eus', fa: 'fas', fi: 'fin', fr: 'fra', ga: 'gle', gl: 'glg', gu: 'guj',
  ha: 'hau', he: 'heb', hi: 'hin', hr: 'hrv', hu: 'hun', hy: 'hye', id: 'ind', it: 'ita', ja: 'jpn', ko: 'kor',
  ku: 'kur', la: 'lat', lv: 'lav', lt: 'lit', mr: 'mar', ms: 'msa', my: 'mya', nl: 'nld', nb: 'nob', no: 'nob',
  pl: 'pol', pt: 'por', ro: 'ron', ru: 'rus', sk: 'slk', sl: 'slv', so: 'som', st: 'sot', es: 'spa', sw: 'swa',
  sv: 'swe', tl: 'tgl', th: 'tha', tr: 'tur', uk: 'ukr', ur: 'urd', vi: 'vie', yo: 'yor', zh: 'zho', zu: 'zul',
};

const cache = new Map<string, ReadonlySet<string>>();

export function stopWords(language: string): ReadonlySet<string> {
  const base = language.toLowerCase().split(/[-_]/)[0];
  let set = cache.get(base);
  if (!set) {
    const list = stopwordLists()[ISO_639_3[base] ?? ''];
    set = new Set(Array.isArray(list) ? list.map((w) => fold(w)) : []);
    cache.set(base, set);
  }
  return set;
}

function fold(w: string): string {
  return w.toLowerCase().normalize('NFKD').replace(/\p{M}+/gu, '');
}

/** The content terms of a text: folded words of two or more letters that are not stop words. */
export function terms(text: string, stop: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const raw of fold(text).split(/[^\p{L}\p{N}']+/u)) {
    const w = raw.replace(/^'+|'+$/g, '');
    if (w.length < 2 || stop.has(w)) continue;
    out.push(w);
  }
  return out;
}
