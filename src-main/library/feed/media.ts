// Which of an entry's enclosures is its episode (docs/feeds.md "Items without media"): audio or
// video first, whatever order the feed lists them in; an image is the entry's picture, never its
// media; an entry with neither has no download to do.
export interface MediaCandidate {
  url: string | null;
  type: string | null;
  medium: string | null;
  length: number | null;
  durationS: number | null;
}

type Kind = 'av' | 'image' | 'unknown' | 'other';

const AV_EXT = /\.(mp3|m4a|m4b|aac|ogg|oga|opus|flac|wav|mp4|m4v|mov|webm|mkv|avi|mpg|mpeg|3gp)$/i;
const IMAGE_EXT = /\.(jpe?g|png|gif|webp|avif|svg|bmp)$/i;

function kindOf(c: MediaCandidate): Kind {
  const type = c.type ?? '';
  if (/^(audio|video)\//.test(type) || type === 'application/ogg' || c.medium === 'audio' || c.medium === 'video') return 'av';
  if (type.startsWith('image/') || c.medium === 'image') return 'image';
  let path = '';
  try { path = new URL(c.url ?? '').pathname; } catch { path = c.url ?? ''; }
  if (AV_EXT.test(path)) return 'av';
  if (IMAGE_EXT.test(path)) return 'image';
  // No type, or one that says nothing (octet-stream): it may well be the episode; a typed document is not.
  return type === '' || type === 'application/octet-stream' || type === 'binary/octet-stream' ? 'unknown' : 'other';
}

/** The entry's media (null when it has none) and the first image among its enclosures. */
export function chooseMedia(candidates: MediaCandidate[]): { media: MediaCandidate | null; image: MediaCandidate | null } {
  const kinds = candidates.map((c) => ({ c, kind: kindOf(c) }));
  const media = kinds.find((k) => k.kind === 'av')?.c ?? kinds.find((k) => k.kind === 'unknown')?.c ?? null;
  const image = kinds.find((k) => k.kind === 'image')?.c ?? null;
  return { media, image };
}
