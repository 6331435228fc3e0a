// Reads RSS 2.0, RSS 1.0 (RDF) and Atom the way feed readers do (docs/feeds.md): bytes decoded in
// the charset found (decode.ts), a tolerant parse that recovers entries from ill-formed XML with
// a note kept for the channel (xml-tree.ts), elements matched by namespace URI, URLs resolved
// against xml:base and the feed's URL, and every entry an item with a stable id. A document is
// refused only when nothing item-like can be recovered, with the XML error and its line.
import { BacklotError } from '../../../src-shared/errors';
import type { ListedEntry } from '../listing';
import { parseItunesDuration } from './duration';
import { shortHash } from '../ids';
import { decodeFeed } from './decode';
import { parseXmlTree, type XmlElement } from './xml-tree';
import { chooseMedia, type MediaCandidate } from './media';
import { MAX_TRANSCRIPT_OFFERS, type TranscriptOffer } from '../../../src-shared/transcript/offers';

export { decodeFeed } from './decode';

export interface ParsedFeed {
  format: 'rss' | 'atom' | 'rdf';
  title: string | null;
  entries: ListedEntry[];
  /** What was wrong with the feed and how it was read anyway ("bozo"), or null for a clean feed. */
  note: string | null;
}

const PLAIN = new Set(['', 'http://purl.org/rss/1.0', 'http://my.netscape.com/rdf/simple/0.9', 'http://backend.userland.com/rss2']);
const ATOM = new Set(['http://www.w3.org/2005/atom', 'http://purl.org/atom/ns#']);
const CORE = new Set([...PLAIN, ...ATOM]);
const ITUNES = new Set(['http://www.itunes.com/dtds/podcast-1.0.dtd']);
const MEDIA = new Set(['http://search.yahoo.com/mrss']);
const CONTENT = new Set(['http://purl.org/rss/1.0/modules/content']);
const DC = new Set(['http://purl.org/dc/elements/1.1', 'http://purl.org/dc/terms']);
// Podcasting 2.0 (docs/transcripts.md "The publisher's transcript"); the URI's trailing slash is trimmed like the others'.
const PODCAST = new Set(['https://podcastindex.org/namespace/1.0']);
const FEED_ROOTS: Record<string, ParsedFeed['format']> = { rss: 'rss', feed: 'atom', rdf: 'rdf' };

/** The listing's limits (library/listing.ts): a longer field is shortened, never the whole feed refused. */
const LIMITS = { id: 2048, title: 2000, url: 8192, description: 100_000, type: 200 };

function kids(el: XmlElement | undefined, ns: Set<string>, local: string): XmlElement[] {
  return el ? el.children.filter((c) => c.local === local && ns.has(c.ns)) : [];
}
function kid(el: XmlElement | undefined, ns: Set<string>, local: string): XmlElement | undefined {
  return kids(el, ns, local)[0];
}

/** All text inside an element, markup that a lenient parse read as elements included. */
function textOf(el: XmlElement | undefined): string | null {
  if (!el) return null;
  const parts: string[] = [];
  const walk = (e: XmlElement) => { parts.push(e.text); for (const c of e.children) walk(c); };
  walk(el);
  return parts.join('').trim() || null;
}

function url(raw: string | null | undefined, el: XmlElement): string | null {
  if (!raw || !raw.trim()) return null;
  try {
    const href = new URL(raw.trim(), el.base ?? undefined).href;
    return href.length <= LIMITS.url ? href : null;
  } catch {
    return null;
  }
}

function date(...els: (XmlElement | undefined)[]): number | null {
  for (const el of els) {
    const s = textOf(el);
    if (!s) continue;
    const t = Date.parse(s);
    if (Number.isFinite(t)) return t / 1000;
  }
  return null;
}

function length(v: string | undefined): number | null {
  if (v === undefined || !/^\d+$/.test(v.trim())) return null;
  const n = Number(v.trim());
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

function clip(s: string | null, max: number): string | null {
  return s === null || s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/** The entry elements: RSS <item> and Atom <entry> wherever they are (a feed missing <channel> too), never one inside another. */
function entryElements(root: XmlElement): XmlElement[] {
  const found: XmlElement[] = [];
  const walk = (el: XmlElement) => {
    if ((el.local === 'item' && PLAIN.has(el.ns)) || (el.local === 'entry' && (ATOM.has(el.ns) || el.ns === ''))) {
      found.push(el);
      return;
    }
    for (const c of el.children) walk(c);
  };
  walk(root);
  return found;
}

function feedTitle(root: XmlElement): string | null {
  const channel = root.local === 'channel' ? root : kid(root, PLAIN, 'channel');
  return clip(textOf(kid(channel, CORE, 'title') ?? kid(root, CORE, 'title')), LIMITS.title);
}

/** Parses a feed document; refuses it (FEED_NOT_XML {line, column}, FEED_NOT_A_FEED {root}) only when no entry can be recovered. */
export function parseFeed(bytes: Buffer, contentType?: string, feedUrl?: string | null): ParsedFeed {
  const decoded = decodeFeed(bytes, contentType);
  const tree = parseXmlTree(decoded.text, feedUrl ?? null);
  const root = tree.root;
  const elements = root ? entryElements(root) : [];
  const problem = tree.problem;
  if (!root || elements.length === 0) {
    const rootName = root?.local ?? null;
    if (root && !(rootName! in FEED_ROOTS)) {
      throw new BacklotError('FEED_NOT_A_FEED', `The document is XML but not a feed (its root element is <${rootName}>, not <rss>, <feed> or <rdf:RDF>, and it holds no <item> or <entry>).`, { root: rootName });
    }
    if (problem) {
      throw new BacklotError('FEED_NOT_XML', `The feed is not well-formed XML (line ${problem.line}, column ${problem.column}: ${problem.message}) and no entry could be recovered from it.`, { line: problem.line, column: problem.column, error: problem.message });
    }
  }
  const format: ParsedFeed['format'] = FEED_ROOTS[root!.local] ?? (elements[0]?.local === 'entry' ? 'atom' : 'rss');
  const notes: string[] = [];
  if (decoded.note) notes.push(decoded.note);
  if (problem) notes.push(`The feed is not well-formed XML (line ${problem.line}, column ${problem.column}: ${problem.message}); it was read leniently and ${elements.length} ${elements.length === 1 ? 'entry was' : 'entries were'} recovered.`);
  if (!(root!.local in FEED_ROOTS)) notes.push(`Its root element is <${root!.local}>, not <rss>, <feed> or <rdf:RDF>.`);
  const entries = withUniqueIds(elements.map((el) => entryOf(el)));
  const shortened = entries.filter((e) => e.shortened).length;
  if (shortened > 0) notes.push(`${shortened} ${shortened === 1 ? 'entry had a field' : 'entries had fields'} longer than Backlot keeps; shortened, the entries kept.`);
  return {
    format, title: feedTitle(root!), note: notes.length > 0 ? notes.join(' ') : null,
    entries: entries.map((e) => e.entry),
  };
}

interface Built { entry: ListedEntry; derivedId: boolean; fingerprint: string; shortened: boolean }

/** A feed that gives two entries the same derived id (no guid) keeps both: the second's id gets its content's hash. */
function withUniqueIds(built: Built[]): Built[] {
  const seen = new Set<string>();
  for (const b of built) {
    if (seen.has(b.entry.externalId) && b.derivedId) b.entry.externalId = `${b.entry.externalId}#${b.fingerprint}`;
    seen.add(b.entry.externalId);
  }
  return built;
}

function entryOf(el: XmlElement): Built {
  const links = kids(el, CORE, 'link');
  // An Atom link (or .NET's a10:link in RSS) has an href; an RSS link is its text.
  const hrefLink = (rel: string) => links.find((l) => l.attrs.has('href') && (l.attrs.get('rel') ?? 'alternate') === rel);
  const alternate = hrefLink('alternate');
  const link = url(textOf(links.find((l) => !l.attrs.has('href'))), el) ?? (alternate ? url(alternate.attrs.get('href'), alternate) : null);
  const candidates: MediaCandidate[] = [
    ...kids(el, PLAIN, 'enclosure').map((e) => candidate(e, 'url', 'length')),
    ...links.filter((l) => l.attrs.get('rel') === 'enclosure').map((l) => candidate(l, 'href', 'length')),
    ...kids(el, MEDIA, 'content').map((m) => candidate(m, 'url', 'filesize')),
    ...kids(el, MEDIA, 'group').flatMap((g) => kids(g, MEDIA, 'content').map((m) => candidate(m, 'url', 'filesize'))),
  ].filter((c) => c.url !== null);
  const { media, image } = chooseMedia(candidates);
  const rawTitle = textOf(kid(el, CORE, 'title')) ?? textOf(kid(el, MEDIA, 'title'));
  const publishedAt = date(kid(el, PLAIN, 'pubdate'), kid(el, DC, 'date'), kid(el, CORE, 'published'), kid(el, CORE, 'updated'), kid(el, CORE, 'issued'), kid(el, DC, 'created'));
  const description = textOf(kid(el, CONTENT, 'encoded')) ?? textOf(kid(el, PLAIN, 'description')) ?? textOf(kid(el, CORE, 'summary'))
    ?? textOf(kid(el, CORE, 'content')) ?? textOf(kid(el, ITUNES, 'summary'));
  const itunesImage = kid(el, ITUNES, 'image');
  const thumbnail = kid(el, MEDIA, 'thumbnail');
  const imageUrl = url(itunesImage?.attrs.get('href'), itunesImage ?? el) ?? url(thumbnail?.attrs.get('url'), thumbnail ?? el)
    ?? url(textOf(kid(kid(el, PLAIN, 'image'), PLAIN, 'url')), el) ?? image?.url ?? null;
  const fingerprint = shortHash(contentOf(el), 16);
  const explicit = textOf(kid(el, PLAIN, 'guid')) ?? textOf(kid(el, CORE, 'id')) ?? el.attrs.get('about')?.trim() ?? null;
  const derived = media?.url ?? link ?? (rawTitle !== null || publishedAt !== null ? `untitled-${shortHash(`${rawTitle ?? ''}\0${publishedAt ?? ''}`, 16)}` : `entry-${fingerprint}`);
  let externalId = explicit ?? derived;
  const tooLong = externalId.length > LIMITS.id;
  if (tooLong) externalId = `long-id-${shortHash(externalId, 32)}`;
  const title = clip(rawTitle, LIMITS.title);
  const desc = clip(description, LIMITS.description);
  const type = media?.type && media.type.length <= LIMITS.type ? media.type : null;
  const transcripts = transcriptOffersOf(el);
  return {
    entry: {
      externalId, title: title ?? '', publishedAt,
      durationS: parseItunesDuration(textOf(kid(el, ITUNES, 'duration'))) ?? media?.durationS ?? null,
      url: media?.url ?? null, description: desc, imageUrl, enclosureType: type, enclosureLength: media?.length ?? null, live: null,
      ...(transcripts.length > 0 ? { transcripts } : {}),
    },
    derivedId: explicit === null, fingerprint,
    shortened: tooLong || title !== rawTitle || desc !== description || type !== (media?.type ?? null),
  };
}

function candidate(el: XmlElement, urlAttr: string, lengthAttr: string): MediaCandidate {
  return {
    url: url(el.attrs.get(urlAttr), el), type: el.attrs.get('type')?.trim().toLowerCase() || null, medium: el.attrs.get('medium')?.trim().toLowerCase() || null,
    length: length(el.attrs.get(lengthAttr) ?? el.attrs.get('length')), durationS: parseItunesDuration(el.attrs.get('duration') ?? null),
  };
}

/** The entry's <podcast:transcript> elements with a usable URL, in the feed's order. */
function transcriptOffersOf(el: XmlElement): TranscriptOffer[] {
  const attr = (e: XmlElement, name: string, max: number) => {
    const v = e.attrs.get(name)?.trim() ?? '';
    return v !== '' && v.length <= max ? v : null;
  };
  return kids(el, PODCAST, 'transcript').flatMap((t) => {
    const href = url(t.attrs.get('url'), t);
    if (!href || !/^https?:/i.test(href)) return [];
    return [{ url: href, type: (attr(t, 'type', LIMITS.type) ?? '').split(';')[0].trim().toLowerCase(), language: attr(t, 'language', 64), rel: attr(t, 'rel', 64) }];
  }).slice(0, MAX_TRANSCRIPT_OFFERS);
}

/** Everything an entry says, for the last-resort id: its text and attributes in document order. */
function contentOf(el: XmlElement): string {
  const parts: string[] = [];
  const walk = (e: XmlElement) => {
    parts.push(`<${e.ns}|${e.local}`, ...[...e.attrs].map(([k, v]) => `${k}=${v}`), e.text.trim());
    for (const c of e.children) walk(c);
  };
  walk(el);
  return parts.join('\0');
}
