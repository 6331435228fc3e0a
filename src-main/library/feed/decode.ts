// A feed's bytes as text, the charset found as feed readers find it (docs/feeds.md "Encodings"):
// a byte-order mark (UTF-8, UTF-16, UTF-32), then the HTTP charset, then the XML declaration, then
// detection from the bytes (jschardet) when they are not UTF-8; decoded with iconv-lite, which
// knows every charset feeds are published in (KOI8-R and UTF-32 included). Both are required on
// first use, jschardet only when a feed's bytes are not UTF-8 (docs/benchmarks.md "The command
// line", session 7).
import type Iconv from 'iconv-lite';
import type Jschardet from 'jschardet';
import { lazyRequire } from '../../system/lazy-require';

const iconv = lazyRequire<typeof Iconv>('iconv-lite');
const jschardet = lazyRequire<typeof Jschardet>('jschardet');

export interface DecodedFeed {
  text: string;
  /** The charset the bytes were decoded with (iconv-lite's name for it). */
  charset: string;
  /** How it was found: 'bom', 'http', 'declaration', 'detected' or 'default'. */
  from: 'bom' | 'http' | 'declaration' | 'detected' | 'default';
  /** Set when a declared charset could not decode the bytes and detection was used instead. */
  note: string | null;
}

const BOMS: [number[], string][] = [
  [[0x00, 0x00, 0xfe, 0xff], 'utf-32be'],
  [[0xff, 0xfe, 0x00, 0x00], 'utf-32le'],
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xfe, 0xff], 'utf-16be'],
  [[0xff, 0xfe], 'utf-16le'],
];

/** WHATWG decodes the Latin-1 labels as windows-1252, as browsers and feed readers do. */
const LATIN = new Set(['iso-8859-1', 'iso8859-1', 'latin1', 'l1', 'us-ascii', 'ascii', 'iso_8859-1']);

function usable(label: string | undefined): string | null {
  if (!label) return null;
  const l = label.trim().toLowerCase();
  if (LATIN.has(l)) return 'windows-1252';
  return iconv().encodingExists(l) ? l : null;
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function decode(bytes: Buffer, charset: string): string {
  // iconv-lite strips a BOM by itself; a leading U+FEFF left by another path is dropped too.
  return iconv().decode(bytes, charset).replace(/^\uFEFF/, '');
}

function detected(bytes: Buffer): string {
  if (isUtf8(bytes)) return 'utf-8';
  const guess = jschardet().detect(bytes);
  return usable(guess.encoding ?? undefined) ?? 'windows-1252';
}

export function decodeFeed(bytes: Buffer, contentType: string | undefined): DecodedFeed {
  for (const [mark, charset] of BOMS) {
    if (mark.every((b, i) => bytes[i] === b)) return { text: decode(bytes, charset), charset, from: 'bom', note: null };
  }
  // UTF-16 without a mark still starts "<?" or whitespace with a zero byte beside each character.
  if (bytes[0] === 0x3c && bytes[1] === 0x00 && bytes[2] !== 0x00) return { text: decode(bytes, 'utf-16le'), charset: 'utf-16le', from: 'detected', note: null };
  if (bytes[0] === 0x00 && bytes[1] === 0x3c) return { text: decode(bytes, 'utf-16be'), charset: 'utf-16be', from: 'detected', note: null };
  const http = /charset\s*=\s*"?([A-Za-z0-9._:-]+)/i.exec(contentType ?? '')?.[1];
  const head = bytes.subarray(0, 512).toString('latin1');
  const declared = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(head)?.[1];
  for (const [label, from] of [[http, 'http'], [declared, 'declaration']] as const) {
    const charset = usable(label);
    if (!charset) continue;
    // A charset that says UTF-8 of bytes that are not is the commonest lie feeds tell.
    if (charset.replace('-', '') === 'utf8' && !isUtf8(bytes)) {
      const guess = detected(bytes);
      return { text: decode(bytes, guess), charset: guess, from: 'detected', note: `The feed says it is ${label} but its bytes are not; it was read as ${guess}.` };
    }
    return { text: decode(bytes, charset), charset, from, note: null };
  }
  const guess = detected(bytes);
  return { text: decode(bytes, guess), charset: guess, from: guess === 'utf-8' ? 'default' : 'detected', note: null };
}
