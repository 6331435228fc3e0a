// Tells what the user handed `library add`: a folder on disk, a feed URL or a platform channel /
// playlist URL. Pure recognition (no network): it names the kind, the platform, the normalised
// source the duplicate check compares, and a first title; the engines fill in the rest on sync.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BacklotError } from '../../src-shared/errors';
import type { ChannelKind } from './repository';

export interface RecognisedSource {
  kind: ChannelKind;
  platform: string;
  /** Normalised: an absolute real path, or a URL without fragment or trailing slash. */
  source: string;
  /** A title to start with; a feed's or platform's own title replaces it at the first sync. */
  title: string;
}

/** Host (without a leading www./m.) → platform name. yt-dlp handles all of them. */
const PLATFORM_HOSTS: Record<string, string> = {
  'youtube.com': 'youtube',
  'music.youtube.com': 'youtube',
  'youtu.be': 'youtube',
  'vimeo.com': 'vimeo',
  'twitch.tv': 'twitch',
  'dailymotion.com': 'dailymotion',
  'soundcloud.com': 'soundcloud',
  'rumble.com': 'rumble',
  'odysee.com': 'odysee',
  'bandcamp.com': 'bandcamp',
  'bilibili.com': 'bilibili',
  'tiktok.com': 'tiktok',
  'peertube.tv': 'peertube',
};

const FEED_WORDS = new Set(['feed', 'feeds', 'rss', 'atom', 'podcast', 'podcasts', 'itunes']);
const FEED_EXTENSIONS = ['.xml', '.rss', '.atom'];

function unrecognised(source: string, why: string): BacklotError {
  return new BacklotError('SOURCE_UNRECOGNISED', `"${source}" ${why}; give a folder path, a feed URL (RSS/Atom) or a channel or playlist URL.`, { source });
}

export function platformOf(host: string): string | undefined {
  const bare = host.toLowerCase().replace(/^(www|m)\./, '');
  if (PLATFORM_HOSTS[bare]) return PLATFORM_HOSTS[bare];
  // Subdomain channels (artist.bandcamp.com, a PeerTube instance's channels stay with the feed rule).
  const parent = bare.split('.').slice(-2).join('.');
  return parent === 'bandcamp.com' ? 'bandcamp' : undefined;
}

export function normaliseUrl(url: URL): string {
  url.hash = '';
  url.hostname = url.hostname.toLowerCase();
  if (url.pathname.length > 1) url.pathname = url.pathname.replace(/\/+$/, '');
  return url.href;
}

function youtubeTitle(url: URL): string | undefined {
  const list = url.searchParams.get('list');
  const segments = url.pathname.split('/').filter(Boolean);
  if (url.hostname.endsWith('youtu.be')) return list ? `YouTube playlist ${list}` : undefined;
  if (segments[0]?.startsWith('@')) return segments[0];
  if (['channel', 'c', 'user'].includes(segments[0] ?? '') && segments[1]) return segments[1];
  if (segments[0] === 'playlist' && list) return `YouTube playlist ${list}`;
  if (segments[0] === 'watch' && list) return `YouTube playlist ${list}`;
  return undefined;
}

function recogniseUrl(raw: string, url: URL): RecognisedSource {
  const platform = platformOf(url.hostname);
  if (platform === 'youtube') {
    const title = youtubeTitle(url);
    if (!title) throw unrecognised(raw, 'is a single YouTube video or page, not a channel or playlist');
    return { kind: 'platform', platform, source: normaliseUrl(url), title };
  }
  if (platform) {
    const segments = url.pathname.split('/').filter(Boolean);
    if (segments.length === 0 && platform !== 'bandcamp') throw unrecognised(raw, `is the ${platform} home page, not a channel or playlist`);
    return { kind: 'platform', platform, source: normaliseUrl(url), title: decodeSafe(segments.at(-1) ?? url.hostname) };
  }
  const words = [...url.hostname.toLowerCase().split('.'), ...url.pathname.toLowerCase().split(/[/._-]+/)];
  const looksLikeFeed = words.some((w) => FEED_WORDS.has(w))
    || FEED_EXTENSIONS.some((ext) => url.pathname.toLowerCase().endsWith(ext))
    || ['rss', 'atom', 'feed'].some((k) => url.searchParams.has(k) || url.searchParams.get('format') === k);
  if (!looksLikeFeed) throw unrecognised(raw, 'does not look like a feed (RSS/Atom/podcast) or a channel on a known platform');
  return { kind: 'feed', platform: 'podcast', source: normaliseUrl(url), title: url.hostname.replace(/^(www|feeds?|rss)\./, '') };
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(os.homedir(), p.slice(1)) : p;
}

function recogniseFolder(raw: string, candidate: string): RecognisedSource {
  const stat = fs.statSync(candidate);
  if (!stat.isDirectory()) {
    throw new BacklotError('NOT_A_FOLDER', `${candidate} is a file, not a folder; add the folder that holds it.`, { source: raw });
  }
  // The real path: a folder reached through a symlink and directly is the same channel.
  const real = fs.realpathSync.native(candidate);
  return { kind: 'folder', platform: 'folder', source: real, title: path.basename(real) || real };
}

export function recogniseSource(input: string, cwd: string = process.cwd()): RecognisedSource {
  const raw = input.trim();
  if (raw === '') throw new BacklotError('SOURCE_UNRECOGNISED', 'The source is empty; give a folder path, a feed URL (RSS/Atom) or a channel or playlist URL.', { source: input });
  // Any "name:" prefix (two letters or more, so a Windows drive stays a path) is a URL, never a path: "htp:/bad" is a typo of a URL.
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw) ?? /^([a-z][a-z0-9+.-]+):(?![\\])/i.exec(raw);
  if (scheme) {
    const name = scheme[1].toLowerCase();
    if (name !== 'http' && name !== 'https') throw unrecognised(raw, `uses ${name}://, which Backlot cannot read (only http and https)`);
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw unrecognised(raw, 'is not a valid URL');
    }
    if (!url.hostname) throw unrecognised(raw, 'has no host name');
    return recogniseUrl(raw, url);
  }
  const candidate = path.resolve(cwd, expandHome(raw));
  if (fs.existsSync(candidate)) return recogniseFolder(raw, candidate);
  // A platform address typed without its scheme ("youtube.com/@name") is still meant as a URL.
  const firstSegment = raw.split('/')[0];
  if (platformOf(firstSegment)) return recogniseSource(`https://${raw}`, cwd);
  const looksLikePath = path.isAbsolute(raw) || /^(~|\.{1,2})([/\\]|$)/.test(raw) || /[/\\]/.test(raw);
  if (looksLikePath) throw new BacklotError('FOLDER_NOT_FOUND', `The folder ${candidate} does not exist.`, { source: raw, path: candidate });
  throw unrecognised(raw, 'is neither an existing folder nor a URL');
}
