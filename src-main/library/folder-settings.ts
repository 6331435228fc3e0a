// What a folder channel's scan looks for (extensions, recursion, hidden files) and the fingerprint
// of those settings: when it changes, a half-done scan pass means nothing and starts over.
import { shortHash } from './ids';

export const AUDIO_EXTENSIONS = ['aac', 'aif', 'aiff', 'alac', 'ape', 'flac', 'm4a', 'm4b', 'mka', 'mp2', 'mp3', 'oga', 'ogg', 'opus', 'wav', 'weba', 'wma'] as const;
export const VIDEO_EXTENSIONS = ['3gp', 'avi', 'flv', 'm2ts', 'm4v', 'mkv', 'mov', 'mp4', 'mpeg', 'mpg', 'mts', 'ogv', 'ts', 'webm', 'wmv'] as const;

export interface FolderSettings {
  /** Lowercase, without the dot. */
  extensions: string[];
  recursive: boolean;
  includeHidden: boolean;
}

/** Bumped when the scan's own rules change, so every folder gets one clean pass under the new rules. */
const SCAN_RULES_VERSION = 1;

export function defaultFolderSettings(): FolderSettings {
  return { extensions: [...AUDIO_EXTENSIONS, ...VIDEO_EXTENSIONS], recursive: true, includeHidden: false };
}

/** Reads a channel's settings_json; anything absent or malformed falls back to the default. */
export function folderSettingsOf(settingsJson: string): FolderSettings {
  const d = defaultFolderSettings();
  let raw: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(settingsJson) as unknown;
    if (parsed && typeof parsed === 'object') raw = parsed as Record<string, unknown>;
  } catch {
    // A broken settings blob must not stop the scan; the defaults are what the user last saw.
  }
  const extensions = Array.isArray(raw.extensions) && raw.extensions.every((e) => typeof e === 'string')
    ? normaliseExtensions(raw.extensions as string[])
    : d.extensions;
  return {
    extensions,
    recursive: typeof raw.recursive === 'boolean' ? raw.recursive : d.recursive,
    includeHidden: typeof raw.includeHidden === 'boolean' ? raw.includeHidden : d.includeHidden,
  };
}

export function normaliseExtensions(list: readonly string[]): string[] {
  return [...new Set(list.map((e) => e.trim().toLowerCase().replace(/^\.+/, '')).filter(Boolean))].sort();
}

export function folderSettingsFingerprint(s: FolderSettings): string {
  return shortHash(JSON.stringify([SCAN_RULES_VERSION, normaliseExtensions(s.extensions), s.recursive, s.includeHidden]), 16);
}

export function hasMediaExtension(name: string, s: FolderSettings): boolean {
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || dot === name.length - 1) return false;
  return s.extensions.includes(name.slice(dot + 1).toLowerCase());
}
