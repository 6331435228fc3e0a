// The host's settings travel with each pool job, so a worker's engine runs as the host's would (chunk
// length, language, model, thresholds) and the output matches the fingerprint the host records
// (docs/pools.md "A unit on a worker"). Secrets and the host's own transport stay home.
import crypto from 'node:crypto';
import { SETTING_KEYS, checkSetting, defaultSettings, isSecretSetting, type SettingKey, type SettingsValues } from '../../../src-shared/settings/settings-schema';

/** Settings that are the host's machinery, not anything an engine's output depends on. */
const HOST_ONLY = ['transport.', 'pools.'];

const travels = (key: SettingKey): boolean => !isSecretSetting(key) && !HOST_ONLY.some((p) => key.startsWith(p));

/** What the host puts in a job: every setting an engine may read, never a secret. */
export function jobSettings(settings: SettingsValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) if (travels(key)) out[key] = settings[key];
  return out;
}

/** The SHA-256 a job names its settings by: that of their JSON as the host wrote it to Redis. */
export function settingsRef(text: string): string {
  return crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The settings a worker runs a job's engine with: its defaults with the job's values over them. A key
 * this build does not know (a newer host) is left out; a value it refuses fails the job as invalid.
 */
export function settingsForJob(sent: Record<string, unknown>): { ok: true; settings: SettingsValues } | { ok: false; reason: string } {
  const settings = defaultSettings() as Record<SettingKey, unknown>;
  for (const key of SETTING_KEYS) {
    if (!travels(key) || !(key in sent)) continue;
    const checked = checkSetting(key, sent[key]);
    if (!checked.ok) return { ok: false, reason: `setting ${key} ${checked.problem}` };
    settings[key] = checked.value;
  }
  return { ok: true, settings: settings as SettingsValues };
}
