// `backlot settings get|set|unset KEY --channel ID`: a channel's own value of a setting it may set
// for itself (src-shared/settings/channel-settings.ts), kept in its settings_json and checked with
// the setting's schema; the library-wide value applies where a channel sets none.
import type Database from 'better-sqlite3';
import { BacklotError } from '../../../src-shared/errors';
import { CHANNEL_SETTING_KEYS, channelOwnSetting, channelSettingsObject, isChannelSettingKey } from '../../../src-shared/settings/channel-settings';
import { checkSetting, parseSettingInput, type SettingKey } from '../../../src-shared/settings/settings-schema';
import { SettingsStore } from '../../settings/settings-store';

export interface ChannelSettingAnswer { channel: string; key: string; value: unknown; own: boolean }

export function channelSetting(db: Database.Database, verb: 'get' | 'set' | 'unset', channelId: string, key: SettingKey, typed?: string): ChannelSettingAnswer {
  if (!isChannelSettingKey(key)) {
    throw new BacklotError('SETTING_NOT_PER_CHANNEL', `Setting "${key}" applies to the whole library; a channel can set only ${CHANNEL_SETTING_KEYS.join(', ')}.`, { key });
  }
  const row = db.prepare('SELECT settings_json FROM channels WHERE id = ? AND removed_at IS NULL').get(channelId) as { settings_json: string } | undefined;
  if (!row) throw new BacklotError('CHANNEL_NOT_FOUND', `There is no channel "${channelId}" in the library.`, { channel: channelId });
  const current = channelSettingsObject(row.settings_json);
  if (verb !== 'get') {
    if (verb === 'set') {
      const parsed = parseSettingInput(key, typed ?? '');
      const checked = parsed.ok ? checkSetting(key, parsed.value) : { ok: false as const, kind: 'wrong-type' as const, problem: parsed.problem };
      if (!checked.ok) {
        const code = checked.kind === 'wrong-type' ? 'SETTING_WRONG_TYPE' : checked.kind === 'out-of-range' ? 'SETTING_OUT_OF_RANGE' : 'SETTING_INVALID';
        throw new BacklotError(code, `Setting "${key}" ${checked.problem}; got ${shown(typed)} for channel ${channelId}.`, { key, channel: channelId });
      }
      current[key] = checked.value;
    } else {
      delete current[key];
    }
    db.prepare('UPDATE channels SET settings_json = ? WHERE id = ?').run(JSON.stringify(current), channelId);
  }
  const own = channelOwnSetting(JSON.stringify(current), key);
  return { channel: channelId, key, value: own ?? new SettingsStore(db).get(key), own: own !== undefined };
}

/** The value as the settings store shows a refused one: JSON, cut at 80 characters. */
function shown(typed: string | undefined): string {
  const s = JSON.stringify(typed ?? '');
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}
