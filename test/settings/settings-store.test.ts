import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Db } from '../../src-main/db/connection';
import { SettingsStore, type SettingChange } from '../../src-main/settings/settings-store';
import { BacklotError } from '../../src-shared/errors';
import { SETTINGS, SETTING_KEYS, LANE_KEYS, defaultSettings } from '../../src-shared/settings/settings-schema';
import { CATALOG } from '../../src-shared/catalog/operations';

let dir: string;
let file: string;
let db: Db;
let store: SettingsStore;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-settings-'));
  file = path.join(dir, 'backlot.sqlite');
  db = openDatabase(file);
  store = new SettingsStore(db, { now: () => 1000 });
});
afterEach(() => {
  if (db.open) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function refusal(fn: () => unknown): BacklotError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(BacklotError);
    return e as BacklotError;
  }
  throw new Error('expected a refusal');
}

function storedRows(): unknown[] {
  return db.prepare('SELECT key, value FROM settings ORDER BY key').all();
}

describe('declaration', () => {
  it('declares every key the brief names with its default', () => {
    const d = defaultSettings();
    expect(d['lanes.sync.slots']).toBe(1);
    expect(d['lanes.download.slots']).toBe(2);
    expect(d['lanes.gpu.slots']).toBe(1);
    expect(d['lanes.cpu.slots']).toBe(2);
    expect(d['lanes.remote.slots']).toBe(4);
    expect(d['diskGate.drainingBelowBytes']).toBe(50e9);
    expect(d['diskGate.shutBelowBytes']).toBe(10e9);
    expect(d['retry.maxAttempts']).toBe(3);
    expect(d['retry.baseS']).toBe(30);
    expect(d['retry.maxS']).toBe(900);
    expect(d['retry.jitter']).toBe(0.1);
    expect(d.quietHours).toEqual([]);
    expect(d['spend.capUsd']).toBeNull();
    expect(d['spend.window']).toBe('month');
    expect(d['runs.retentionDays']).toBe(30);
    expect(d['sync.defaultIntervalS']).toBe(3600);
    expect(d['claims.leaseS']).toBe(60);
    expect(d['engines.stallTimeoutS']).toBe(120);
  });

  it('every default passes its own validation and has a one-line description', () => {
    for (const key of SETTING_KEYS) {
      const spec = SETTINGS[key];
      expect(spec.schema.safeParse(spec.default).success, key).toBe(true);
      expect(spec.description.length, key).toBeGreaterThan(10);
      expect(spec.description.includes('\n'), key).toBe(false);
      expect(['live', 'restart']).toContain(spec.applies);
    }
  });

  it('declares slots for exactly the catalog lanes', () => {
    const catalogLanes = new Set(CATALOG.flatMap((op) => op.engines.map((e) => e.lane.queueKey)));
    expect(new Set(LANE_KEYS)).toEqual(catalogLanes);
  });
});

describe('SettingsStore', () => {
  it('returns defaults on a fresh library and writes nothing to read them', () => {
    expect(store.get('lanes.remote.slots')).toBe(4);
    expect(store.all().every((e) => e.isDefault && e.changedAt === null)).toBe(true);
    expect(storedRows()).toEqual([]);
  });

  it('sets and reads a value, and all() marks it changed', () => {
    store.set('lanes.download.slots', 5);
    expect(store.get('lanes.download.slots')).toBe(5);
    const entry = store.all().find((e) => e.key === 'lanes.download.slots')!;
    expect(entry).toMatchObject({ value: 5, default: 2, isDefault: false, applies: 'live', changedAt: 1000 });
  });

  it('accepts 0 slots: a hold, not a stop', () => {
    store.set('lanes.gpu.slots', 0);
    expect(store.get('lanes.gpu.slots')).toBe(0);
  });

  it('refuses an unknown key, naming it', () => {
    const e = refusal(() => store.set('lanes.tpu.slots' as never, 1));
    expect(e.code).toBe('UNKNOWN_SETTING');
    expect(e.message).toContain('"lanes.tpu.slots"');
    expect(refusal(() => store.get('nope' as never)).code).toBe('UNKNOWN_SETTING');
    expect(storedRows()).toEqual([]);
  });

  it('refuses a wrong type, naming the key and the problem', () => {
    const e = refusal(() => store.set('retry.maxAttempts', 'three'));
    expect(e.code).toBe('SETTING_WRONG_TYPE');
    expect(e.message).toBe('Setting "retry.maxAttempts" must be a number; got "three".');
    expect(refusal(() => store.set('lanes.cpu.slots', 1.5)).code).toBe('SETTING_WRONG_TYPE');
    expect(refusal(() => store.set('spend.capUsd', '10')).code).toBe('SETTING_WRONG_TYPE');
    expect(storedRows()).toEqual([]);
  });

  it('refuses a value out of range', () => {
    const e = refusal(() => store.set('lanes.cpu.slots', -1));
    expect(e.code).toBe('SETTING_OUT_OF_RANGE');
    expect(e.message).toBe('Setting "lanes.cpu.slots" must be at least 0; got -1.');
    expect(refusal(() => store.set('retry.jitter', 1.5)).message).toContain('must be at most 1');
    expect(refusal(() => store.set('retry.maxAttempts', 0)).code).toBe('SETTING_OUT_OF_RANGE');
    expect(refusal(() => store.set('spend.capUsd', -5)).code).toBe('SETTING_OUT_OF_RANGE');
    expect(storedRows()).toEqual([]);
  });

  it('refuses an invalid enum and malformed quiet hours, pointing at the field', () => {
    expect(refusal(() => store.set('spend.window', 'year')).code).toBe('SETTING_INVALID');
    const bad = refusal(() => store.set('quietHours', [{ lane: 'download', from: '9:00', to: '17:00' }]));
    expect(bad.code).toBe('SETTING_INVALID');
    expect(bad.message).toContain('at [0].from');
    expect(refusal(() => store.set('quietHours', [{ lane: 'tape', from: '09:00', to: '17:00' }])).message).toContain('must name a lane');
    expect(refusal(() => store.set('quietHours', [{ lane: 'cpu', from: '09:00', to: '09:00' }])).message).toContain('different');
    expect(refusal(() => store.set('quietHours', [{ lane: 'cpu', from: '09:00', to: '10:00', days: [7] }])).code).toBe('SETTING_OUT_OF_RANGE');
    expect(refusal(() => store.set('quietHours', [{ lane: 'cpu', from: '09:00', to: '10:00', extra: 1 }])).message).toContain('unknown field "extra"');
    expect(storedRows()).toEqual([]);
  });

  it('accepts quiet hours across midnight with weekdays, and a spend cap then back to none', () => {
    const windows = [{ lane: 'download' as const, from: '22:00', to: '06:00', days: [1, 2, 3, 4, 5] }];
    store.set('quietHours', windows);
    expect(store.get('quietHours')).toEqual(windows);
    store.set('spend.capUsd', 12.5);
    expect(store.get('spend.capUsd')).toBe(12.5);
    store.set('spend.capUsd', null);
    expect(store.get('spend.capUsd')).toBeNull();
  });

  it('refuses a shut threshold above the draining one, in either order of change', () => {
    const e = refusal(() => store.set('diskGate.shutBelowBytes', 60e9));
    expect(e.code).toBe('SETTING_CONFLICT');
    expect(e.message).toContain('"diskGate.shutBelowBytes"');
    expect(e.message).toContain('must not exceed diskGate.drainingBelowBytes');
    expect(refusal(() => store.set('diskGate.drainingBelowBytes', 5e9)).code).toBe('SETTING_CONFLICT');
    store.set('diskGate.shutBelowBytes', 50e9); // equal is allowed
    expect(store.get('diskGate.shutBelowBytes')).toBe(50e9);
    expect(refusal(() => store.set('retry.maxS', 10)).code).toBe('SETTING_CONFLICT');
    expect(store.get('retry.maxS')).toBe(900);
  });

  it('refuses a restart key unless the restart is acknowledged, and then marks it pending', () => {
    const e = refusal(() => store.set('claims.leaseS', 90));
    expect(e.code).toBe('RESTART_REQUIRED');
    expect(e.message).toContain('"claims.leaseS"');
    expect(storedRows()).toEqual([]);
    const r = store.set('claims.leaseS', 90, { restartAcknowledged: true });
    expect(r).toEqual({ key: 'claims.leaseS', value: 90, applies: 'restart', restartPending: true });
    expect(store.get('claims.leaseS')).toBe(90);
  });

  it('still validates a restart key before asking for the restart', () => {
    expect(refusal(() => store.set('claims.leaseS', 1, { restartAcknowledged: true })).code).toBe('SETTING_OUT_OF_RANGE');
  });

  it('notifies listeners of live changes only, once per real change, until unsubscribed', () => {
    const seen: SettingChange[] = [];
    const off = store.onChange((c) => seen.push(c));
    store.set('lanes.cpu.slots', 3);
    store.set('lanes.cpu.slots', 3); // no change, no event
    store.set('claims.leaseS', 30, { restartAcknowledged: true });
    try { store.set('lanes.cpu.slots', -1); } catch { /* refused: no event */ }
    expect(seen).toEqual([{ key: 'lanes.cpu.slots', value: 3, previous: 2, applies: 'live' }]);
    off();
    store.set('lanes.cpu.slots', 4);
    expect(seen).toHaveLength(1);
  });

  it('a failing listener neither undoes the write nor silences the others', () => {
    const errors: unknown[] = [];
    const s = new SettingsStore(db, { onListenerError: (e) => errors.push(e) });
    const second = vi.fn();
    s.onChange(() => { throw new Error('boom'); });
    s.onChange(second);
    expect(s.set('retry.baseS', 10).value).toBe(10);
    expect(second).toHaveBeenCalledOnce();
    expect(errors).toHaveLength(1);
    expect(s.get('retry.baseS')).toBe(10);
  });

  it('persists across reopening the file', () => {
    store.set('runs.retentionDays', 7);
    store.set('quietHours', [{ lane: 'gpu', from: '08:00', to: '18:00' }]);
    db.close();
    db = openDatabase(file);
    const reopened = new SettingsStore(db);
    expect(reopened.get('runs.retentionDays')).toBe(7);
    expect(reopened.get('quietHours')).toEqual([{ lane: 'gpu', from: '08:00', to: '18:00' }]);
    expect(reopened.get('retry.maxS')).toBe(900);
  });

  it('reads a stored value that no longer validates as the default', () => {
    db.prepare("INSERT INTO settings (key, value, changed_at) VALUES ('lanes.sync.slots', '\"many\"', 0), ('retry.baseS', 'not json', 0)").run();
    expect(store.get('lanes.sync.slots')).toBe(1);
    expect(store.get('retry.baseS')).toBe(30);
  });
});

describe('settings written by another process (issue 23 item 7)', () => {
  it('tells the listeners what another connection committed, once, and not this store\'s own writes again', () => {
    const heard: SettingChange[] = [];
    store.onChange((c) => heard.push(c));
    expect(store.noticeOtherWriters()).toEqual([]);
    const other = openDatabase(file);
    try {
      const cli = new SettingsStore(other, { now: () => 2000 });
      cli.set('spend.capUsd', 7);
      cli.set('claims.leaseS', 90, { restartAcknowledged: true });
      cli.set('digest.remote.apiKey', 'sk-another-process-key');
      expect(store.noticeOtherWriters().sort()).toEqual(['digest.remote.apiKey', 'spend.capUsd']);
      expect(heard.map((c) => [c.key, c.value])).toEqual(expect.arrayContaining([['spend.capUsd', 7], ['digest.remote.apiKey', '(set)']]));
      expect(heard).toHaveLength(2);
      expect(store.noticeOtherWriters()).toEqual([]);

      // The same key written again by the other process (a new key replacing a refused one) is heard again.
      cli.set('digest.remote.apiKey', 'sk-another-process-key-2');
      new SettingsStore(other, { now: () => 3000 }).set('digest.remote.apiKey', 'sk-another-process-key-3');
      expect(store.noticeOtherWriters()).toEqual(['digest.remote.apiKey']);

      // This store's own write was told at once and is not told again.
      store.set('spend.capUsd', 9);
      expect(heard).toHaveLength(4);
      expect(store.noticeOtherWriters()).toEqual([]);
      expect(heard).toHaveLength(4);
    } finally {
      other.close();
    }
  });
});
