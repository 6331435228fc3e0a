// Where a download lands (issue 10): `<data>/media/` + the template setting, by default
// `<channel>/<date> <title> [<id>].<ext>`, each segment made safe on every OS (Windows' reserved
// characters and names, trailing dots and spaces, control characters, length limits) and readable.
import path from 'node:path';
import { createHash } from 'node:crypto';

const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;
const SEGMENT_BYTES = 180;

/** One path segment: no separators or characters any of Windows, macOS or Linux refuses. */
export function safeName(text: string, fallback = '_'): string {
  let s = text.normalize('NFC')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .replace(/[<>:"/\\|?*]/g, '_')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[. ]+$/, '');
  if (s === '' || s === '.' || s === '..') s = fallback;
  if (RESERVED.test(s)) s = `_${s}`;
  // Cut by bytes (file systems count bytes), never inside a character.
  while (Buffer.byteLength(s, 'utf8') > SEGMENT_BYTES) s = [...s].slice(0, -1).join('');
  return s.replace(/[. ]+$/, '') || fallback;
}

export interface MediaNameFields {
  channel: string;
  /** Seconds since the epoch. */
  publishedAt: number;
  title: string;
  id: string;
  ext: string;
}

function isoDate(t: number): string {
  const d = new Date(t * 1000);
  return Number.isFinite(d.getTime()) ? d.toISOString().slice(0, 10) : 'undated';
}

/** The media path relative to `<data>/media`, from a template already validated by its setting. */
export function mediaRelativePath(template: string, f: MediaNameFields): string {
  const ext = safeName(f.ext.replace(/^\.+/, '').toLowerCase(), 'bin').replace(/[^a-z0-9]/g, '') || 'bin';
  const values: Record<string, string> = { channel: f.channel, date: isoDate(f.publishedAt), title: f.title, id: f.id, ext };
  const segments = template.split(/[/\\]/).map((segment) => {
    // The extension is joined after the name is made safe, so a long title never eats it.
    const body = segment.endsWith('.{ext}') ? segment.slice(0, -'.{ext}'.length) : segment;
    const filled = body.replace(/\{(\w+)\}/g, (_m, k: string) => values[k] ?? '');
    const safe = safeName(filled);
    return segment.endsWith('.{ext}') ? `${safe}.${ext}` : safe;
  });
  return segments.join('/');
}

/**
 * The same path with the item's own mark before the extension (` [#<hash of the item id>]`), for a
 * name another item or a file already holds (issue 23): two feeds both titled "Podcast" with guid
 * "1", guids `a/b` and `a_b`, or guids that differ only past the segment's byte limit all fill the
 * template alike. The name is cut first so the mark always survives the limit
 * (docs/security.md "Colliding media names").
 */
export function itemMarkedPath(relative: string, itemId: string): string {
  const segments = relative.split('/');
  const last = segments.pop()!;
  const dot = last.lastIndexOf('.');
  const [body, ext] = dot > 0 ? [last.slice(0, dot), last.slice(dot)] : [last, ''];
  const mark = ` [#${createHash('sha1').update(itemId).digest('hex').slice(0, 12)}]`;
  let cut = body;
  while (cut !== '' && Buffer.byteLength(cut + mark, 'utf8') > SEGMENT_BYTES) cut = [...cut].slice(0, -1).join('');
  return [...segments, `${cut.replace(/[. ]+$/, '')}${mark}${ext}`].join('/');
}

export function mediaRoot(dataDir: string): string {
  return path.join(dataDir, 'media');
}

/** A stable folder per item for a download's partial bytes, outside the job's temporary folder, so a later attempt resumes. */
export function partialDir(dataDir: string, safeItemSegment: string): string {
  return path.join(dataDir, '.backlot-partials', safeItemSegment);
}
