// The one writer of settings: every value is validated against the shared declaration before it
// touches the database, a restart-only key needs an explicit acknowledgement, and live listeners
// hear each committed change, this process's own and, through noticeOtherWriters, another's (the CLI).
import path from 'node:path';
import type { Db } from '../db/connection';
import { BacklotError } from '../../src-shared/errors';
import {
  CROSS_RULES, SECRET_SET, SECRET_UNSET, SETTINGS, SETTING_KEYS, checkSetting, defaultSettings, isSecretSetting, isSettingKey,
  type SettingApplies, type SettingKey, type SettingValue, type SettingsValues,
} from '../../src-shared/settings/settings-schema';
import { SecretStore } from './secret-store';

export interface SettingChange<K extends SettingKey = SettingKey> {
  key: K;
  value: SettingValue<K>;
  previous: SettingValue<K>;
  applies: SettingApplies;
}

export interface SettingEntry {
  key: SettingKey;
  value: unknown;
  default: unknown;
  isDefault: boolean;
  applies: SettingApplies;
  description: string;
  changedAt: number | null;
}

export interface SetResult<K extends SettingKey> {
  key: K;
  value: SettingValue<K>;
  applies: SettingApplies;
  /** True for a restart key: the running process keeps its old value until it restarts. */
  restartPending: boolean;
}

type Listener = (change: SettingChange) => void;

export interface SettingsStoreOptions {
  now?: () => number;
  /** Where a listener's exception goes; the write has committed, so set() must not throw it. */
  onListenerError?: (error: unknown) => void;
  /** Where write-only settings go (default: the secrets folder beside the database file). */
  secrets?: SecretStore;
}

interface Row {
  key: string;
  value: string;
  changed_at: number;
}

export class SettingsStore {
  private readonly listeners = new Set<Listener>();
  private readonly q;
  private readonly now: () => number;
  private readonly onListenerError: (error: unknown) => void;
  private secretStore: SecretStore | undefined;
  /** Each row's value and changed_at as this store last knew them: what another process changed shows against it. */
  private seen: Map<string, { value: string; changedAt: number }> | null = null;
  private dataVersion = -1;

  constructor(private readonly db: Db, options: SettingsStoreOptions = {}) {
    this.secretStore = options.secrets;
    this.now = options.now ?? (() => Date.now() / 1000);
    this.onListenerError = options.onListenerError
      ?? ((e) => process.emitWarning(`A settings listener failed: ${(e as Error)?.message ?? String(e)}`));
    this.q = {
      one: db.prepare('SELECT key, value, changed_at FROM settings WHERE key = ?'),
      all: db.prepare('SELECT key, value, changed_at FROM settings'),
      dataVersion: db.prepare('PRAGMA data_version').pluck(),
      upsert: db.prepare(`INSERT INTO settings (key, value, changed_at) VALUES (?, ?, ?)
                          ON CONFLICT (key) DO UPDATE SET value = excluded.value, changed_at = excluded.changed_at`),
    };
  }

  /**
   * Read from the database each time, not from a cache: the CLI writes from another process and
   * a stored value that no longer validates (an older build wrote it) reads as the default.
   */
  get<K extends SettingKey>(key: K): SettingValue<K> {
    requireSettingKey(key);
    if (isSecretSetting(key)) return this.secretMarker(key) as SettingValue<K>;
    const row = this.q.one.get(key) as Row | undefined;
    return row ? this.decode(key, row.value) : (structuredClone(SETTINGS[key].default) as SettingValue<K>);
  }

  values(): SettingsValues {
    const out = defaultSettings() as Record<string, unknown>;
    for (const row of this.q.all.all() as Row[]) {
      if (isSettingKey(row.key) && !isSecretSetting(row.key)) out[row.key] = this.decode(row.key, row.value);
    }
    for (const key of SETTING_KEYS) if (isSecretSetting(key)) out[key] = this.secretMarker(key);
    return out as SettingsValues;
  }

  /** The secret store beside the database (made on first use: most readers never touch a secret). */
  secrets(): SecretStore {
    if (!this.secretStore) {
      const file = this.db.name;
      if (!file || file === ':memory:') throw new BacklotError('SECRET_STORE_UNAVAILABLE', 'Write-only settings need a library folder; this database has none.');
      this.secretStore = new SecretStore(path.dirname(file));
    }
    return this.secretStore;
  }

  /** SECRET_SET or SECRET_UNSET: all anyone but the engine that uses a secret ever learns of it. */
  private secretMarker(key: SettingKey): string {
    const file = this.db.name;
    if (!this.secretStore && (!file || file === ':memory:')) return SECRET_UNSET;
    return this.secrets().has(key) ? SECRET_SET : SECRET_UNSET;
  }

  /** A write-only setting: "" (or null) removes it; anything else is checked and stored, never echoed. */
  private setSecret<K extends SettingKey>(key: K, value: unknown): SetResult<K> {
    const spec = SETTINGS[key];
    const previous = this.secretMarker(key);
    if (value === '' || value === null) {
      this.secrets().remove(key);
    } else {
      const checked = checkSetting(key, value);
      if (!checked.ok) {
        const code = checked.kind === 'wrong-type' ? 'SETTING_WRONG_TYPE' : checked.kind === 'out-of-range' ? 'SETTING_OUT_OF_RANGE' : 'SETTING_INVALID';
        const got = typeof value === 'string' ? `a value of ${value.length} characters` : `a ${value === null ? 'null' : typeof value}`;
        throw new BacklotError(code, `Setting "${key}" ${checked.problem}; got ${got} (not shown: the setting is write-only).`, { key });
      }
      this.secrets().write(key, checked.value as string);
    }
    const marker = this.secretMarker(key);
    // The row records only when and whether: the value itself never reaches the database.
    const changedAt = this.now();
    this.q.upsert.run(key, JSON.stringify(marker), changedAt);
    this.remember(key, JSON.stringify(marker), changedAt);
    // Always heard, even when it was set before: a new key must reach the engines (a refused one is retried).
    this.notify({ key, value: marker, previous, applies: spec.applies } as SettingChange);
    return { key, value: marker as SettingValue<K>, applies: spec.applies, restartPending: false };
  }

  all(): SettingEntry[] {
    const rows = new Map((this.q.all.all() as Row[]).map((r) => [r.key, r]));
    const values = this.values();
    return SETTING_KEYS.map((key) => {
      const spec = SETTINGS[key];
      const value = values[key];
      return {
        key, value, default: spec.default,
        isDefault: JSON.stringify(value) === JSON.stringify(spec.default),
        applies: spec.applies, description: spec.description,
        changedAt: rows.get(key)?.changed_at ?? null,
      };
    });
  }

  /** Validates, checks cross-key rules and the restart rule, then writes; a refusal writes nothing. */
  set<K extends SettingKey>(key: K, value: unknown, options: { restartAcknowledged?: boolean } = {}): SetResult<K> {
    requireSettingKey(key);
    if (isSecretSetting(key)) return this.setSecret(key, value);
    const checked = checkSetting(key, value);
    if (!checked.ok) {
      const code = checked.kind === 'wrong-type' ? 'SETTING_WRONG_TYPE' : checked.kind === 'out-of-range' ? 'SETTING_OUT_OF_RANGE' : 'SETTING_INVALID';
      throw new BacklotError(code, `Setting "${key}" ${checked.problem}; got ${show(value)}.`, { key, value });
    }
    const spec = SETTINGS[key];
    const change = this.db.transaction(() => {
      const before = this.values();
      const after = { ...before, [key]: checked.value } as SettingsValues;
      for (const rule of CROSS_RULES) {
        if (!rule.keys.includes(key)) continue;
        const conflict = rule.check(after);
        if (conflict) throw new BacklotError('SETTING_CONFLICT', `Setting "${key}" cannot be ${show(value)}: ${conflict}.`, { key, value, keys: rule.keys });
      }
      if (spec.applies === 'restart' && options.restartAcknowledged !== true) {
        throw new BacklotError('RESTART_REQUIRED', `Setting "${key}" takes effect only after Backlot restarts; confirm the restart to change it.`, { key });
      }
      const changedAt = this.now();
      this.q.upsert.run(key, JSON.stringify(checked.value), changedAt);
      this.remember(key, JSON.stringify(checked.value), changedAt);
      return { key, value: checked.value, previous: before[key], applies: spec.applies } as SettingChange<K>;
    }).immediate();
    if (spec.applies === 'live' && JSON.stringify(change.previous) !== JSON.stringify(change.value)) this.notify(change as SettingChange);
    return { key, value: change.value, applies: spec.applies, restartPending: spec.applies === 'restart' };
  }

  /** Hears committed changes of live keys; returns the unsubscribe. */
  onChange(listener: (change: SettingChange) => void): () => void {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  /**
   * Hears what another process wrote (`backlot settings set` while the host serves): SQLite's
   * data_version moves when another connection commits, and then each row whose value or time
   * changed since this store last looked is told to the listeners as a change of this process would
   * be. A secret's row is rewritten with every write (its time), so a new key is heard too
   * (docs/security.md "Settings from another process"). The first call only takes the snapshot.
   * Returns the keys heard.
   */
  noticeOtherWriters(): SettingKey[] {
    const version = this.q.dataVersion.get() as number;
    if (version === this.dataVersion && this.seen) return [];
    this.dataVersion = version;
    const rows = this.q.all.all() as Row[];
    const before = this.seen;
    this.seen = new Map(rows.map((r) => [r.key, { value: r.value, changedAt: r.changed_at }]));
    if (!before) return [];
    const heard: SettingKey[] = [];
    for (const row of rows) {
      const was = before.get(row.key);
      if (was && was.value === row.value && was.changedAt === row.changed_at) continue;
      if (!isSettingKey(row.key)) continue;
      const spec = SETTINGS[row.key];
      // A restart key written elsewhere waits for the restart, as it would here.
      if (spec.applies !== 'live') continue;
      const previous = was ? this.decode(row.key, was.value) : structuredClone(spec.default);
      const value = isSecretSetting(row.key) ? this.secretMarker(row.key) : this.decode(row.key, row.value);
      heard.push(row.key);
      this.notify({ key: row.key, value, previous, applies: spec.applies } as SettingChange);
    }
    return heard;
  }

  private remember(key: string, value: string, changedAt: number): void {
    this.seen?.set(key, { value, changedAt });
  }

  private notify(change: SettingChange): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch (e) {
        this.onListenerError(e);
      }
    }
  }

  private decode<K extends SettingKey>(key: K, text: string): SettingValue<K> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return structuredClone(SETTINGS[key].default) as SettingValue<K>;
    }
    const checked = checkSetting(key, parsed);
    return checked.ok ? checked.value : (structuredClone(SETTINGS[key].default) as SettingValue<K>);
  }
}

export function requireSettingKey(key: string): asserts key is SettingKey {
  if (!isSettingKey(key)) {
    throw new BacklotError('UNKNOWN_SETTING', `There is no setting "${key}"; run "backlot settings list" for the keys.`, { key });
  }
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const s = JSON.stringify(value) ?? String(value);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}
