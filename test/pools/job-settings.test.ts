// The host's settings that travel with a pool job (src-main/pools/transport/job-settings.ts,
// docs/pools.md "A unit on a worker"): every setting an engine reads, never a secret nor the host's
// transport; a worker takes them over its defaults key by key and refuses a value out of range.
import { describe, expect, it } from 'vitest';
import { jobSettings, settingsForJob, settingsRef } from '../../src-main/pools/transport/job-settings';
import { JOB_FORMAT, check, hostSettingsKey, hostSettingsRefKey, poolJobSchema } from '../../src-main/pools/transport/job-schema';
import { defaultSettings, type SettingsValues } from '../../src-shared/settings/settings-schema';

function hostSettings(): SettingsValues {
  return { ...defaultSettings(), 'transcribe.chunkS': 5, 'transcribe.language': 'hu', 'digest.remote.apiKey': 'sk-host-secret', 'transport.redisUrl': 'redis://backlot-admin@nas:6380' };
}

describe('the settings a pool job carries', () => {
  it('carries what shapes an engine and leaves secrets and the transport at home', () => {
    const sent = jobSettings(hostSettings());
    expect(sent['transcribe.chunkS']).toBe(5);
    expect(sent['transcribe.language']).toBe('hu');
    expect(sent).not.toHaveProperty('digest.remote.apiKey');
    expect(sent).not.toHaveProperty('transport.redisUrl');
    expect(JSON.stringify(sent)).not.toContain('sk-host-secret');
  });

  it('gives the worker the host\'s values over its defaults, and ignores keys this build does not know', () => {
    const r = settingsForJob({ ...jobSettings(hostSettings()), 'someday.newSetting': 3 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.settings['transcribe.chunkS']).toBe(5);
    expect(r.settings['transcribe.language']).toBe('hu');
    expect(r.settings['digest.remote.apiKey']).toBe(defaultSettings()['digest.remote.apiKey']);
    expect(r.settings).not.toHaveProperty('someday.newSetting');
  });

  it('refuses a value the setting does not allow, naming the setting', () => {
    const r = settingsForJob({ 'transcribe.chunkS': 2 });
    expect(r).toEqual({ ok: false, reason: expect.stringMatching(/^setting transcribe\.chunkS must be at least 5/) });
  });

  it('never takes a secret or the transport from a job', () => {
    const r = settingsForJob({ 'digest.remote.apiKey': 'sk-forged', 'transport.redisUrl': 'redis://elsewhere:6379' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.settings['digest.remote.apiKey']).toBe(defaultSettings()['digest.remote.apiKey']);
    expect(r.settings['transport.redisUrl']).toBe(defaultSettings()['transport.redisUrl']);
  });
});

describe('settings by reference (docs/pools.md "Settings travel with the job")', () => {
  const text = JSON.stringify(jobSettings(hostSettings()));
  const job = (over: Record<string, unknown>) => ({
    format: JOB_FORMAT, pool: 'studio', lane: 'cpu', jobId: 'job-1', unitKey: 'digest:item-1', claimToken: 'claim-1', operation: 'digest', engineId: 'test',
    channel: { id: 'ch-1', kind: 'folder', platform: 'local', title: 'C', source: '/x', sync_interval_s: null, last_sync_at: null, settings_json: '{}', created_at: 1, removed_at: null },
    item: null, attempts: 0, budgetUsd: null, files: [], media: null, inputs: {},
    door: { ticket: 't'.repeat(32), uploadToken: 'u'.repeat(32), unitId: 'job-1' }, leaseMs: 30_000, ...over,
  });

  it('names the settings by the SHA-256 of the JSON the host wrote', () => {
    const ref = settingsRef(text);
    expect(ref).toMatch(/^[0-9a-f]{64}$/);
    expect(ref).toBe(settingsRef(JSON.stringify(JSON.parse(text))));
    expect(hostSettingsRefKey('studio', ref)).toBe(`${hostSettingsKey('studio')}:${ref}`);
  });

  it('takes a job with its settings or with their reference, and says what is wrong with any other', () => {
    expect(check(poolJobSchema, job({ settingsRef: settingsRef(text) })).ok).toBe(true);
    expect(check(poolJobSchema, job({ settings: JSON.parse(text) as Record<string, unknown> })).ok).toBe(true);
    expect(check(poolJobSchema, job({}))).toEqual({ ok: false, reason: 'settings: a job carries either the host\'s settings or their settingsRef, exactly one' });
    expect(check(poolJobSchema, job({ settings: {}, settingsRef: settingsRef(text) }))).toEqual({ ok: false, reason: 'settings: a job carries either the host\'s settings or their settingsRef, exactly one' });
    expect(check(poolJobSchema, job({ settingsRef: 'abc' }))).toEqual({ ok: false, reason: 'settingsRef: must be the SHA-256 of the host\'s settings (64 hex digits)' });
  });
});
