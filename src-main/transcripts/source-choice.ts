// Whose transcript an item gets, per channel (docs/transcripts.md "Settings"): a channel's own
// `transcripts.source` / `transcripts.autoCaptions` in its settings blob, else the library's
// setting. The publisher-transcript engine asks here in `accepts`, so the choice is read fresh for
// every unit and a change applies to the next one.
import type { ChannelRecord } from '../library/repository';
import type { Host } from '../host/host';
import { BacklotError } from '../../src-shared/errors';
import { TRANSCRIPT_SOURCES, type SettingsValues, type TranscriptSourceChoice } from '../../src-shared/settings/settings-schema';

export interface TranscriptChoice {
  source: TranscriptSourceChoice;
  autoCaptions: boolean;
}

function own(channel: Pick<ChannelRecord, 'settings_json'>): Record<string, unknown> {
  try {
    const s = JSON.parse(channel.settings_json) as unknown;
    return s !== null && typeof s === 'object' && !Array.isArray(s) ? s as Record<string, unknown> : {};
  } catch {
    return {};
  }
}

export function transcriptChoice(channel: Pick<ChannelRecord, 'settings_json'>, settings: Pick<SettingsValues, 'transcripts.source' | 'transcripts.autoCaptions'>): TranscriptChoice {
  const s = own(channel);
  const source = s['transcripts.source'];
  const auto = s['transcripts.autoCaptions'];
  return {
    source: typeof source === 'string' && (TRANSCRIPT_SOURCES as readonly string[]).includes(source) ? source as TranscriptSourceChoice : settings['transcripts.source'],
    autoCaptions: typeof auto === 'boolean' ? auto : settings['transcripts.autoCaptions'],
  };
}

/** The channel settings keys a user may set per channel (`backlot library set`), with their check. */
export const CHANNEL_TRANSCRIPT_KEYS = {
  'transcripts.source': (v: string): TranscriptSourceChoice | null => ((TRANSCRIPT_SOURCES as readonly string[]).includes(v) ? v as TranscriptSourceChoice : null),
  'transcripts.autoCaptions': (v: string): boolean | null => (v === 'true' ? true : v === 'false' ? false : null),
} as const;

/**
 * Sets (or, with "default", clears) one channel's own transcript setting; anything else in its
 * settings blob (a folder's extensions, a platform's format) is kept. Refuses an unknown channel,
 * key or value by name.
 */
export function setChannelTranscriptSetting(host: Host, channelId: string, key: string, value: string): Record<string, unknown> {
  const channel = host.library.channel(channelId);
  if (!channel || channel.removed_at !== null) throw new BacklotError('CHANNEL_NOT_FOUND', `There is no channel "${channelId}" in the library.`, { channel: channelId });
  if (!Object.prototype.hasOwnProperty.call(CHANNEL_TRANSCRIPT_KEYS, key)) {
    throw new BacklotError('SETTING_UNKNOWN', `A channel has no setting "${key}"; it may set ${Object.keys(CHANNEL_TRANSCRIPT_KEYS).join(' or ')}.`, { key });
  }
  const k = key as keyof typeof CHANNEL_TRANSCRIPT_KEYS;
  const next = own(channel);
  if (value === 'default') {
    delete next[k];
  } else {
    const parsed = CHANNEL_TRANSCRIPT_KEYS[k](value);
    if (parsed === null) {
      throw new BacklotError('SETTING_INVALID', `"${value}" is not a value of ${key}: ${k === 'transcripts.source' ? TRANSCRIPT_SOURCES.join(', ') : 'true or false'}, or default.`, { key, value });
    }
    next[k] = parsed;
  }
  host.transaction(() => host.library.setChannelSettings(channel.id, next));
  return next;
}
