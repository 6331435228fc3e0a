// One yt-dlp flat-listing entry as a listing entry: the platform's id (or, for the generic
// extractor, the id it smuggles into the URL), dates, duration, thumbnail, and live status.
import type { ListedEntry } from '../../library/listing';

function str(v: unknown): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v : null;
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null;
}

/** The generic extractor's "force_videoid" smuggled into the entry URL's fragment. */
function smuggledId(url: string | null): string | null {
  if (!url) return null;
  const m = /#__youtubedl_smuggle=([^&]+)/.exec(url);
  if (!m) return null;
  try {
    const data = JSON.parse(decodeURIComponent(m[1].replace(/\+/g, ' '))) as { force_videoid?: unknown };
    return str(data.force_videoid);
  } catch {
    return null;
  }
}

function uploadDate(v: unknown): number | null {
  const s = str(v);
  const m = s ? /^(\d{4})(\d{2})(\d{2})$/.exec(s) : null;
  return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 1000 : null;
}

export function entryFromYtDlp(raw: Record<string, unknown>): ListedEntry | null {
  const url = str(raw.url) ?? str(raw.webpage_url);
  const externalId = str(raw.id) ?? smuggledId(url) ?? (url ? url.replace(/#__youtubedl_smuggle=.*$/, '') : null);
  if (!externalId) return null;
  const thumbnails = Array.isArray(raw.thumbnails) ? raw.thumbnails as { url?: unknown }[] : [];
  const live = raw.live_status === 'is_live' ? 'live' : raw.live_status === 'is_upcoming' ? 'upcoming' : null;
  const size = num(raw.filesize) ?? num(raw.filesize_approx);
  return {
    externalId,
    title: str(raw.title) ?? externalId,
    publishedAt: num(raw.timestamp) ?? num(raw.release_timestamp) ?? uploadDate(raw.upload_date),
    durationS: num(raw.duration),
    url,
    description: str(raw.description),
    imageUrl: str(raw.thumbnail) ?? str(thumbnails.at(-1)?.url),
    enclosureType: null,
    enclosureLength: size === null ? null : Math.round(size),
    live,
  };
}
