// A feed document as a small element tree, read the way feed readers read it (docs/feeds.md
// "Ill-formed feeds"): a strict pass first, and when it finds an error, a lenient pass of sax's
// non-strict mode that recovers every element it can, with the first error kept as the "bozo" note.
// Elements carry their namespace URI (never the prefix) and their xml:base; entities declared in a
// DOCTYPE are never expanded, and a document that declares any is refused (FEED_ENTITY_REFUSED).
// The strict pass runs saxes (several times faster than sax on a large feed, docs/feeds.md
// "Parsing speed"); only a document it refuses is read again by sax, strict then lenient, so
// the note of an ill-formed feed is sax's, as before. Both are required on first use, sax only for
// such a document (docs/benchmarks.md "The command line", session 7).
import type * as Sax from 'sax';
import type * as Saxes from 'saxes';
import type { SaxesTagNS } from 'saxes';
import { BacklotError } from '../../../src-shared/errors';
import { lazyRequire } from '../../system/lazy-require';

const sax = lazyRequire<typeof Sax>('sax');
const saxes = lazyRequire<typeof Saxes>('saxes');

export interface XmlElement {
  /** Namespace URI, lower-cased and without a trailing slash ('' for none). */
  ns: string;
  /** Local name, lower-cased: the lenient pass folds case, so both passes compare the same way. */
  local: string;
  attrs: Map<string, string>;
  children: XmlElement[];
  /** The text directly inside this element (CDATA included), in document order. */
  text: string;
  /** The base URL in effect here: xml:base resolved against the ancestors', else the document's URL. */
  base: string | null;
  parent: XmlElement | null;
}

export interface XmlProblem {
  message: string;
  line: number;
  column: number;
}

export interface XmlTree {
  root: XmlElement | null;
  /** The first well-formedness error, or null for a well-formed document. */
  problem: XmlProblem | null;
}

/** Prefixes feeds use without declaring them; bound to their usual URIs so nothing is lost. */
const KNOWN_PREFIXES: Record<string, string> = {
  itunes: 'http://www.itunes.com/dtds/podcast-1.0.dtd',
  media: 'http://search.yahoo.com/mrss',
  content: 'http://purl.org/rss/1.0/modules/content',
  dc: 'http://purl.org/dc/elements/1.1',
  atom: 'http://www.w3.org/2005/atom',
  a10: 'http://www.w3.org/2005/atom',
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  podcast: 'https://podcastindex.org/namespace/1.0',
};

export function normaliseNs(uri: string | undefined): string {
  return (uri ?? '').trim().toLowerCase().replace(/\/$/, '');
}

/** Parses a document; `documentUrl` (the feed's URL after redirects) is the base xml:base resolves against. */
export function parseXmlTree(text: string, documentUrl: string | null = null): XmlTree {
  const fast = runSaxes(text, documentUrl);
  if (fast) return fast;
  const strict = run(text, true, documentUrl);
  if (!strict.problem) return strict;
  const lenient = run(text, false, documentUrl);
  return { root: lenient.root, problem: strict.problem };
}

interface NsTag {
  prefix: string;
  local: string;
  uri: string;
  attributes: Record<string, { name: string; prefix: string; local: string; value: string }>;
}

/** Builds the element tree from either parser's events, so both passes read a feed the same way. */
class TreeBuilder {
  root: XmlElement | null = null;
  private current: XmlElement | null = null;

  constructor(private readonly documentUrl: string | null) {}

  open(t: NsTag): void {
    const current = this.current;
    const attrs = new Map<string, string>();
    let base: string | null = current ? current.base : this.documentUrl;
    for (const a of Object.values(t.attributes)) {
      const local = a.local.toLowerCase();
      if (a.prefix.toLowerCase() === 'xml' && local === 'base') base = resolve(a.value, base);
      else if (a.prefix.toLowerCase() !== 'xmlns' && a.name.toLowerCase() !== 'xmlns') attrs.set(local, a.value);
    }
    const prefix = t.prefix.toLowerCase();
    const ns = t.uri && t.uri !== t.prefix ? normaliseNs(t.uri) : prefix ? normaliseNs(KNOWN_PREFIXES[prefix] ?? prefix) : '';
    const el: XmlElement = { ns, local: t.local.toLowerCase(), attrs, children: [], text: '', base, parent: current };
    if (current) current.children.push(el);
    else this.root ??= el;
    this.current = el;
  }

  close(): void {
    if (this.current) this.current = this.current.parent;
  }

  text(t: string): void {
    if (this.current) this.current.text += t;
  }
}

function refuseEntities(doctype: string, line: number): void {
  if (/<!ENTITY/i.test(doctype)) {
    throw new BacklotError('FEED_ENTITY_REFUSED', 'The feed declares entities in its DOCTYPE (an XXE or entity-expansion risk), which Backlot never expands; it cannot be read.', { line });
  }
}

/** Thrown inside a saxes handler to stop at its first error. */
const SAXES_REFUSED = Symbol('saxes refused');

/** The fast strict pass: the tree of a well-formed document, or null for any document saxes refuses. */
function runSaxes(text: string, documentUrl: string | null): XmlTree | null {
  const parser = new (saxes().SaxesParser)({ xmlns: true, position: true });
  const tree = new TreeBuilder(documentUrl);
  parser.on('doctype', (doctype) => refuseEntities(doctype, parser.line));
  parser.on('opentag', (tag: SaxesTagNS) => tree.open(tag));
  parser.on('closetag', () => tree.close());
  parser.on('text', (t) => tree.text(t));
  parser.on('cdata', (t) => tree.text(t));
  parser.on('error', () => { throw SAXES_REFUSED; });
  try {
    parser.write(text).close();
  } catch (e) {
    if (e === SAXES_REFUSED) return null;
    if (e instanceof BacklotError) throw e;
    return null;
  }
  return tree.root ? { root: tree.root, problem: null } : null;
}

function run(text: string, strict: boolean, documentUrl: string | null): XmlTree {
  const parser = sax().parser(strict, { xmlns: true, lowercase: true, position: true, trim: false, normalize: false });
  const tree = new TreeBuilder(documentUrl);
  let problem: XmlProblem | null = null;
  let stopped = false;
  parser.ondoctype = (doctype) => refuseEntities(doctype, parser.line + 1);
  parser.onopentag = (tag) => tree.open(tag as Sax.QualifiedTag);
  parser.onclosetag = () => tree.close();
  const onText = (t: string) => tree.text(t);
  parser.ontext = onText;
  parser.oncdata = onText;
  parser.onerror = (e) => {
    if (!problem) {
      const first = e.message.split('\n')[0];
      problem = { message: first, line: parser.line + 1, column: parser.column + 1 };
    }
    if (strict) {
      stopped = true;
      return;
    }
    // The lenient pass goes on past every error, keeping what it has read.
    parser.resume();
  };
  try {
    for (let i = 0; i < text.length && !stopped; i += 65_536) parser.write(text.slice(i, i + 65_536));
    if (!stopped) parser.close();
  } catch (e) {
    if (e instanceof BacklotError) throw e;
    // sax throws the error it reported when a handler lets it stand; it is recorded already.
    problem ??= { message: (e as Error).message.split('\n')[0], line: parser.line + 1, column: parser.column + 1 };
  }
  const root = tree.root;
  if (!root && !problem) problem = { message: text.trim() === '' ? 'the document is empty' : 'no XML element found', line: 1, column: 1 };
  return { root, problem };
}

function resolve(ref: string, base: string | null): string | null {
  try {
    return new URL(ref.trim(), base ?? undefined).href;
  } catch {
    return base;
  }
}
