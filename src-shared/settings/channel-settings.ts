// Settings a channel may set for itself, over the library-wide value (docs/transcription.md
// "transcribe.prompt"): kept in the channel's settings_json under the setting's own key and checked
// with the setting's own schema, so the CLI, the engines and the window read one rule.
import { checkSetting, type SettingKey, type SettingValue, type SettingsValues } from './settings-schema';

export const CHANNEL_SETTING_KEYS = ['transcribe.prompt', 'transcripts.source', 'transcripts.autoCaptions'] as const satisfies readonly SettingKey[];
export type ChannelSettingKey = (typeof CHANNEL_SETTING_KEYS)[number];

export function isChannelSettingKey(key: string): key is ChannelSettingKey {
  return (CHANNEL_SETTING_KEYS as readonly string[]).includes(key);
}

/** The channel's settings object; anything absent or malformed reads as no overrides. */
export function channelSettingsObject(settingsJson: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(settingsJson) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed as Record<string, unknown> : {};
  } catch {
    return {};
  }
}

/** The channel's own value of `key`, or undefined when it sets none (or one the schema refuses). */
export function channelOwnSetting<K extends ChannelSettingKey>(settingsJson: string, key: K): SettingValue<K> | undefined {
  const raw = channelSettingsObject(settingsJson)[key];
  if (raw === undefined) return undefined;
  const checked = checkSetting(key, raw);
  return checked.ok ? checked.value : undefined;
}

/** What applies to the channel: its own value, else the library-wide setting. */
export function effectiveChannelSetting<K extends ChannelSettingKey>(settingsJson: string, settings: SettingsValues, key: K): SettingValue<K> {
  return channelOwnSetting(settingsJson, key) ?? settings[key];
}
