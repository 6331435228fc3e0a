// The acquisition knobs (docs/acquisition.md): politeness towards platforms and hosts, yt-dlp's
// options, the media file name template and the feed fetch limits. Declared here and spread into
// SETTINGS, so the store, the CLI and the settings page read them like every other setting.
import { z } from 'zod';
import type { SettingSpec, CrossRule } from './settings-schema';

const spec = <S extends z.ZodType>(s: SettingSpec<S>): SettingSpec<S> => s;
const int = (min: number, max?: number) => {
  const base = z.number({ error: 'must be a number' }).int({ error: 'must be a whole number' }).min(min, { error: `must be at least ${min}` });
  return max === undefined ? base : base.max(max, { error: `must be at most ${max}` });
};
const seconds = (min: number) => z.number({ error: 'must be a number of seconds' }).min(min, { error: `must be at least ${min}` });

export const MEDIA_TEMPLATE_FIELDS = ['channel', 'date', 'title', 'id', 'ext'] as const;

/** A media path template: relative, placeholders known, {id} present (names stay unique), ending in .{ext}. */
export const mediaTemplate = z.string({ error: 'must be text' }).min(1, { error: 'must not be empty' }).max(300, { error: 'must be at most 300 characters' })
  .refine((t) => [...t.matchAll(/\{([^}]*)\}/g)].every((m) => (MEDIA_TEMPLATE_FIELDS as readonly string[]).includes(m[1])), { error: `may only use the placeholders ${MEDIA_TEMPLATE_FIELDS.map((f) => `{${f}}`).join(', ')}` })
  .refine((t) => t.includes('{id}'), { error: 'must contain {id}, so two items never share a file' })
  .refine((t) => t.endsWith('.{ext}'), { error: 'must end with .{ext}' })
  .refine((t) => !t.startsWith('/') && !t.startsWith('\\') && !/^[A-Za-z]:/.test(t) && !t.split(/[/\\]/).some((s) => s === '..' || s === '.'), { error: 'must be a relative path without . or .. segments' });

const cap = z.object({
  items: int(1).optional(),
  bytes: int(1).optional(),
}, { error: 'must be an object {items?, bytes?}' }).strict();

export const ACQUISITION_SETTINGS = {
  'download.mediaTemplate': spec({
    schema: mediaTemplate, default: '{channel}/{date} {title} [{id}].{ext}', applies: 'live', input: 'enum',
    description: 'Where a download lands under <data>/media: placeholders {channel}, {date}, {title}, {id}, {ext}; names are made safe on every OS.',
  }),
  'download.format': spec({
    schema: z.enum(['audio', 'video'], { error: 'must be audio or video' }), default: 'audio' as 'audio' | 'video', applies: 'live', input: 'enum',
    description: 'What yt-dlp downloads when a channel does not say: audio only (a transcription library) or video up to download.maxHeight.',
  }),
  'download.maxHeight': spec({
    schema: int(144, 4320), default: 720, applies: 'live', input: 'integer',
    description: 'Tallest video yt-dlp downloads in video format, in pixels.',
  }),
  'download.limitRate': spec({
    schema: z.string({ error: 'must be a rate like 2M or null' }).regex(/^\d+(\.\d+)?[KMG]?$/i, { error: 'must be a rate in bytes per second like 500K or 2M' }).nullable(),
    default: null as string | null, applies: 'live', input: 'json',
    description: 'yt-dlp\'s --limit-rate (bytes per second, e.g. "2M"); null for no limit.',
  }),
  'download.sleepIntervalS': spec({
    schema: seconds(0), default: 0, applies: 'live', input: 'number',
    description: 'yt-dlp\'s --sleep-interval: seconds it waits before each download.',
  }),
  'download.maxSleepIntervalS': spec({
    schema: seconds(0), default: 0, applies: 'live', input: 'number',
    description: 'yt-dlp\'s --max-sleep-interval: with it, the wait is random between the two; must not be below download.sleepIntervalS (0: fixed wait).',
  }),
  'download.cookiesFile': spec({
    schema: z.string({ error: 'must be a file path or null' }).min(1, { error: 'must not be empty' }).nullable(), default: null as string | null, applies: 'live', input: 'json',
    description: 'A Netscape cookies file yt-dlp sends (a signed-in account); null for none.',
  }),
  'ytdlp.path': spec({
    schema: z.string({ error: 'must be a file path or null' }).min(1, { error: 'must not be empty' }).nullable(), default: null as string | null, applies: 'live', input: 'json',
    description: 'The yt-dlp binary to use when the project\'s own (.venv-engines) is absent; null looks on PATH.',
  }),
  'feeds.maxBytes': spec({
    schema: int(1024), default: 20 * 1024 * 1024, applies: 'live', input: 'integer',
    description: 'Largest feed document Backlot reads, in bytes; a bigger one fails its sync as too large.',
  }),
  'http.maxRedirects': spec({
    schema: int(0, 20), default: 5, applies: 'live', input: 'integer',
    description: 'Redirects a feed fetch or a direct download follows before it gives up; each target is checked again.',
  }),
  'politeness.minIntervalS': spec({
    schema: seconds(0), default: 2, applies: 'live', input: 'number',
    description: 'Fewest seconds between the starts of two downloads (plus jitter).',
  }),
  'politeness.jitter': spec({
    schema: z.number({ error: 'must be a number' }).min(0, { error: 'must be at least 0' }).max(1, { error: 'must be at most 1' }), default: 0.5, applies: 'live', input: 'number',
    description: 'Random extra on the minimum interval, as a fraction of it (0 to 1).',
  }),
  'politeness.perHostConcurrency': spec({
    schema: int(1, 16), default: 2, applies: 'live', input: 'integer',
    description: 'Downloads that may run at once from one host.',
  }),
  'politeness.dailyCaps': spec({
    schema: z.record(z.string().min(1, { error: 'must name a platform or host' }), cap, { error: 'must be an object {"<platform or host>": {"items": N, "bytes": N}}' }),
    default: {} as Record<string, { items?: number; bytes?: number }>, applies: 'live', input: 'json',
    description: 'Most downloads per UTC day per platform (youtube, vimeo, ...) or feed host, in items and/or bytes, e.g. {"youtube":{"items":50,"bytes":20000000000}}.',
  }),
  'politeness.cooldownBaseS': spec({
    schema: seconds(1), default: 300, applies: 'live', input: 'number',
    description: 'First cooldown after a platform refuses (429, a bot check); each refusal in a row doubles it.',
  }),
  'politeness.cooldownMaxS': spec({
    schema: seconds(1), default: 6 * 3600, applies: 'live', input: 'number',
    description: 'Longest cooldown in seconds; must not be below politeness.cooldownBaseS.',
  }),
  'folders.watchDebounceMs': spec({
    schema: int(50, 600_000), default: 2000, applies: 'live', input: 'integer',
    description: 'How long a watched folder must be quiet after a change before its scan starts, in milliseconds.',
  }),
} as const satisfies Record<string, SettingSpec>;

export const ACQUISITION_CROSS_RULES: readonly CrossRule[] = [
  {
    keys: ['download.sleepIntervalS', 'download.maxSleepIntervalS'],
    check: (v) => {
      const s = v['download.sleepIntervalS'];
      const m = v['download.maxSleepIntervalS'];
      return m === 0 || m >= s ? null : `download.maxSleepIntervalS (${m}) must be 0 or at least download.sleepIntervalS (${s})`;
    },
  },
  {
    keys: ['politeness.cooldownBaseS', 'politeness.cooldownMaxS'],
    check: (v) => {
      const b = v['politeness.cooldownBaseS'];
      const m = v['politeness.cooldownMaxS'];
      return b <= m ? null : `politeness.cooldownBaseS (${b}) must not exceed politeness.cooldownMaxS (${m})`;
    },
  },
];
