// Reads RSS 2.0, RSS 1.0 (RDF) and Atom, with the podcast namespaces, through fast-xml-parser (a
// kept parser, never regular expressions: docs/decisions.md), from bytes in any charset the feed
// declares. A document that is not XML or not a feed is refused with its own reason code.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { BacklotError } from '../../../src-shared/errors';
import type { ListedEntry } from '../listing';
import { parseItunesDuration } from './duration';
import { shortHash } from '../ids';

export interface ParsedFeed {
  format: 'rss' | 'atom' | 'rdf';
  title: string | null;
  entries: ListedEntry[];
}

const ARRAYS = new Set(['item', 'entry', 'link', 'enclosure', 'media:content', 'category']);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  htmlEntities: true,
  isArray: (name) => ARRAYS.has(name),
});

/** The charset to decode with: a byte-order mark, then the XML declaration, then the HTTP header, then UTF-8. */
export function decodeFeed(bytes: Buffer, contentType: string | undefined): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return new TextDecoder('utf-8').decode(bytes.subarray(3));
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  const head = bytes.subarray(0, 200).toString('latin1');
  const declared = /^<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1]
    ?? /charset\s*=\s*"?([A-Za-z0-9._-]+)/i.exec(contentType ?? '')?.[1];
  for (const label of [declared, 'utf-8']) {
    if (!label) continue;
    try {
      const text = new TextDecoder(label.toLowerCase()).decode(bytes);
      return LATIN_LABELS.has(label.toLowerCase()) ? text.replace(/[\u0080-\u009f]/g, (c) => CP1252[c.charCodeAt(0) - 0x80] || c) : text;
    } catch {
      // An unknown label: try the next one.
    }
  }
  return bytes.toString('utf8');
}

/** WHATWG decodes these labels as windows-1252; some Node builds decode bytes 0x80-0x9f as C1 controls instead. */
const LATIN_LABELS = new Set(['windows-1252', 'cp1252', 'x-cp1252', 'iso-8859-1', 'iso8859-1', 'latin1', 'l1', 'us-ascii', 'ascii']);
const CP1252 = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

type Node = Record<string, unknown>;

function textOf(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v.trim() || null;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return textOf(v[0]);
  if (typeof v === 'object') return textOf((v as Node)['#text']);
  return null;
}

function attr(v: unknown, name: string): string | null {
  const node = Array.isArray(v) ? v[0] : v;
  if (!node || typeof node !== 'object') return null;
  return textOf((node as Node)[`@_${name}`]);
}

function list(v: unknown): Node[] {
  if (v === undefined || v === null) return [];
  return (Array.isArray(v) ? v : [v]).filter((x): x is Node => typeof x === 'object' && x !== null);
}

function date(...values: unknown[]): number | null {
  for (const v of values) {
    const s = textOf(v);
    if (!s) continue;
    const t = Date.parse(s);
    if (Number.isFinite(t)) return t / 1000;
  }
  return null;
}

function length(v: string | null): number | null {
  if (v === null || !/^\d+$/.test(v.trim())) return null;
  const n = Number(v.trim());
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** Parses a feed document; refuses a non-XML document (FEED_NOT_XML {line, column}) or another XML one (FEED_NOT_A_FEED {root}). */
export function parseFeed(bytes: Buffer, contentType?: string): ParsedFeed {
  const text = decodeFeed(bytes, contentType);
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    throw new BacklotError('FEED_NOT_XML', `The feed is not well-formed XML (line ${valid.err.line}, column ${valid.err.col}: ${valid.err.msg}).`, { line: valid.err.line, column: valid.err.col });
  }
  const doc = parser.parse(text) as Node;
  const root = Object.keys(doc).find((k) => !k.startsWith('?') && !k.startsWith('#'));
  if (root === 'rss') {
    const channel = list((doc.rss as Node)?.channel)[0] ?? {};
    return { format: 'rss', title: textOf(channel.title), entries: list(channel.item).map(rssEntry) };
  }
  if (root === 'feed') {
    const feed = doc.feed as Node;
    return { format: 'atom', title: textOf(feed.title), entries: list(feed.entry).map(atomEntry) };
  }
  if (root === 'rdf:RDF') {
    const rdf = doc['rdf:RDF'] as Node;
    return { format: 'rdf', title: textOf(list(rdf.channel)[0]?.title), entries: list(rdf.item).map(rssEntry) };
  }
  throw new BacklotError('FEED_NOT_A_FEED', `The document is XML but not a feed (its root element is <${root ?? 'nothing'}>, not <rss>, <feed> or <rdf:RDF>).`, { root: root ?? null });
}

function rssEntry(item: Node): ListedEntry {
  const enclosure = list(item.enclosure)[0] ?? list(item['media:content'])[0];
  const enclosureUrl = enclosure ? attr(enclosure, 'url') : null;
  const link = textOf(item.link);
  const title = textOf(item.title);
  const publishedAt = date(item.pubDate, item['dc:date'], item.published);
  const guid = textOf(item.guid);
  return {
    externalId: guid ?? enclosureUrl ?? link ?? `untitled-${shortHash(`${title ?? ''}\0${publishedAt ?? ''}`, 16)}`,
    title: title ?? '',
    publishedAt,
    durationS: parseItunesDuration(textOf(item['itunes:duration'])) ?? numberAttr(enclosure, 'duration'),
    url: enclosureUrl ?? link,
    description: textOf(item['content:encoded']) ?? textOf(item.description) ?? textOf(item['itunes:summary']),
    imageUrl: attr(item['itunes:image'], 'href') ?? attr(item['media:thumbnail'], 'url') ?? textOf((item.image as Node | undefined)?.url),
    enclosureType: enclosure ? attr(enclosure, 'type') : null,
    enclosureLength: enclosure ? length(attr(enclosure, 'length') ?? attr(enclosure, 'fileSize')) : null,
    live: null,
  };
}

function numberAttr(node: Node | undefined, name: string): number | null {
  return node ? parseItunesDuration(attr(node, name)) : null;
}

function atomEntry(entry: Node): ListedEntry {
  const links = list(entry.link);
  const enclosure = links.find((l) => attr(l, 'rel') === 'enclosure');
  const alternate = links.find((l) => (attr(l, 'rel') ?? 'alternate') === 'alternate');
  const enclosureUrl = enclosure ? attr(enclosure, 'href') : null;
  const title = textOf(entry.title);
  const publishedAt = date(entry.published, entry.updated);
  return {
    externalId: textOf(entry.id) ?? enclosureUrl ?? (alternate ? attr(alternate, 'href') : null) ?? `untitled-${shortHash(`${title ?? ''}\0${publishedAt ?? ''}`, 16)}`,
    title: title ?? '',
    publishedAt,
    durationS: parseItunesDuration(textOf(entry['itunes:duration'])),
    url: enclosureUrl ?? (alternate ? attr(alternate, 'href') : null),
    description: textOf(entry.summary) ?? textOf(entry.content),
    imageUrl: attr(entry['itunes:image'], 'href') ?? attr(entry['media:thumbnail'], 'url'),
    enclosureType: enclosure ? attr(enclosure, 'type') : null,
    enclosureLength: enclosure ? length(attr(enclosure, 'length')) : null,
    live: null,
  };
}
