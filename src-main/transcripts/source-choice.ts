// Whose transcript an item gets, per channel (docs/transcripts.md "Settings"): a channel's own
// `transcripts.source` / `transcripts.autoCaptions` in its settings blob, else the library's
// setting. The publisher-transcript engine asks here in `accepts`, so the choice is read fresh for
// every unit and a change applies to the next one.
import type { ChannelRecord } from '../library/repository';
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
