// A feed document as a small element tree, read the way feed readers read it (docs/feeds.md
// "Ill-formed feeds"): a strict pass first, and when it finds an error, a lenient pass of sax's
// non-strict mode that recovers every element it can, with the first error kept as the "bozo" note.
// Elements carry their namespace URI (never the prefix) and their xml:base; entities declared in a
// DOCTYPE are never expanded, and a document that declares any is refused (FEED_ENTITY_REFUSED).
import sax from 'sax';
import { BacklotError } from '../../../src-shared/errors';

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
  const strict = run(text, true, documentUrl);
  if (!strict.problem) return strict;
  const lenient = run(text, false, documentUrl);
  return { root: lenient.root, problem: strict.problem };
}

function run(text: string, strict: boolean, documentUrl: string | null): XmlTree {
  const parser = sax.parser(strict, { xmlns: true, lowercase: true, position: true, trim: false, normalize: false });
  let root: XmlElement | null = null;
  let current: XmlElement | null = null;
  let problem: XmlProblem | null = null;
  let stopped = false;
  parser.ondoctype = (doctype) => {
    if (/<!ENTITY/i.test(doctype)) {
      throw new BacklotError('FEED_ENTITY_REFUSED', 'The feed declares entities in its DOCTYPE (an XXE or entity-expansion risk), which Backlot never expands; it cannot be read.', { line: parser.line + 1 });
    }
  };
  parser.onopentag = (tag) => {
    const t = tag as sax.QualifiedTag;
    const attrs = new Map<string, string>();
    let base: string | null = current ? current.base : documentUrl;
    for (const a of Object.values(t.attributes)) {
      const local = a.local.toLowerCase();
      if (a.prefix.toLowerCase() === 'xml' && local === 'base') base = resolve(a.value, base);
      else if (a.prefix.toLowerCase() !== 'xmlns' && a.name.toLowerCase() !== 'xmlns') attrs.set(local, a.value);
    }
    const prefix = t.prefix.toLowerCase();
    const ns = t.uri && t.uri !== t.prefix ? normaliseNs(t.uri) : prefix ? normaliseNs(KNOWN_PREFIXES[prefix] ?? prefix) : '';
    const el: XmlElement = { ns, local: t.local.toLowerCase(), attrs, children: [], text: '', base, parent: current };
    if (current) current.children.push(el);
    else root ??= el;
    current = el;
  };
  parser.onclosetag = () => {
    if (current) current = current.parent;
  };
  const onText = (t: string) => {
    if (current) current.text += t;
  };
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
