// The digest engines' refusals and the pieces around them: the local LLM engine's preflight without
// node-llama-cpp or without a GGUF model (inference cannot be tested here: no model can be fetched),
// the write-only key's store, the remote preflight, and the simulator that keeps channel-digest out.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { llamaCppAdapterWith, nodeLlamaCppPackage } from '../../src-main/engines/llama-cpp/adapter';
import type { EngineEnvironment } from '../../src-main/engines/adapter';
import { SecretStore, type SecretVault } from '../../src-main/settings/secret-store';
import { remotePreflight } from '../../src-main/digest/remote/settings';
import { defaultSettings, type SettingsValues } from '../../src-shared/settings/settings-schema';
import { parseScenario } from '../../src-main/sim/scenario';
import { simulate } from '../../src-main/sim/simulate';
import { calendarPeriod, periodFromKey } from '../../src-shared/schedule/calendar-period';

const dirs: string[] = [];
function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-digest-eng-'));
  dirs.push(d);
  return d;
}
afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

function env(dataDir: string, settings: Partial<SettingsValues> = {}): EngineEnvironment {
  return { dataDir, modelsDir: path.join(dataDir, 'models'), resourcesDir: dataDir, settings: { ...defaultSettings(), ...settings }, gpu: { controllers: [], usable: [], slots: 0, reason: 'none' } };
}

describe('local LLM digest (llama-cpp)', () => {
  it('refuses clearly without a model, with a file that is not GGUF, and without node-llama-cpp', async () => {
    const data = tempDir();
    const adapter = llamaCppAdapterWith(() => '/installed/node-llama-cpp/package.json');
    expect(await adapter.preflight(env(data))).toMatchObject({ ok: false, code: 'MODEL_MISSING', message: expect.stringContaining('No GGUF model is installed') });
    fs.mkdirSync(path.join(data, 'models'));
    fs.writeFileSync(path.join(data, 'models', 'fake.gguf'), 'not a model');
    expect(await adapter.preflight(env(data))).toMatchObject({ ok: false, code: 'MODEL_INVALID' });
    expect(await adapter.preflight(env(data, { 'digest.llama.model': 'other.gguf' }))).toMatchObject({ ok: false, code: 'MODEL_MISSING' });
    expect(await adapter.preflight(env(data, { 'digest.llama.model': '../secret.gguf' }))).toMatchObject({ ok: false, code: 'MODEL_INVALID' });
    // A file that starts as GGUF does passes the preflight (loading it is the worker's job).
    fs.writeFileSync(path.join(data, 'models', 'fake.gguf'), Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(16)]));
    expect(await adapter.preflight(env(data))).toEqual({ ok: true });
    expect(await llamaCppAdapterWith(() => null).preflight(env(data))).toMatchObject({ ok: false, code: 'ENGINE_NOT_INSTALLED' });
    expect(adapter.lane!(env(data))).toEqual({ queueKey: 'cpu', contendsFor: ['cpu'] });
  });

  it('finds the pinned node-llama-cpp installed as an optional dependency', () => {
    const pkg = nodeLlamaCppPackage();
    expect(pkg).not.toBeNull();
    expect((JSON.parse(fs.readFileSync(pkg!, 'utf8')) as { version: string }).version).toBe('3.21.1');
  });
});

describe('the write-only key', () => {
  it('is an owner-only file in an owner-only folder, or sealed by a vault the desktop shell provides', () => {
    const data = tempDir();
    const plain = new SecretStore(data, null);
    expect(plain.read('k')).toEqual({ state: 'unset' });
    plain.write('k', 'sk-1');
    expect(fs.statSync(path.join(data, 'secrets', 'k')).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(data, 'secrets')).mode & 0o777).toBe(0o700);
    expect(plain.read('k')).toEqual({ state: 'set', value: 'sk-1' });
    const vault: SecretVault = { scheme: 'test-vault', isAvailable: () => true, encrypt: (s) => Buffer.from([...s].reverse().join('')), decrypt: (b) => [...b.toString()].reverse().join('') };
    new SecretStore(data, vault).write('k', 'sk-2');
    expect(fs.readFileSync(path.join(data, 'secrets', 'k'), 'utf8')).not.toContain('sk-2');
    expect(new SecretStore(data, vault).read('k')).toEqual({ state: 'set', value: 'sk-2' });
    expect(plain.read('k')).toEqual({ state: 'locked', scheme: 'test-vault' });
    expect(plain.remove('k')).toBe(true);
    expect(plain.has('k')).toBe(false);
  });

  it('is needed by the remote preflight unless the endpoint is on this machine', () => {
    const data = tempDir();
    expect(remotePreflight(data, defaultSettings())).toMatchObject({ ok: false, code: 'REMOTE_NOT_CONFIGURED', message: expect.stringContaining('digest.remote.baseUrl and digest.remote.model') });
    const s = { ...defaultSettings(), 'digest.remote.baseUrl': 'https://api.example.com/v1', 'digest.remote.model': 'm' };
    expect(remotePreflight(data, s)).toMatchObject({ ok: false, code: 'REMOTE_NOT_CONFIGURED', message: expect.stringContaining('digest.remote.apiKey') });
    expect(remotePreflight(data, { ...s, 'digest.remote.baseUrl': 'http://127.0.0.1:8080/v1' })).toEqual({ ok: true });
    expect(remotePreflight(data, { ...s, 'digest.remote.baseUrl': 'http://127.0.0.1:8080/v1', 'digest.remote.contextTokens': 1024, 'digest.remote.maxOutputTokens': 900 })).toMatchObject({ ok: false, code: 'REMOTE_CONTEXT_TOO_SMALL' });
  });
});

describe('periods', () => {
  it('are UTC days, ISO weeks and months, and read back from their keys', () => {
    const t = Date.UTC(2025, 0, 1, 12) / 1000; // a Wednesday in ISO week 2025-W01
    expect(calendarPeriod(t, 'week')).toMatchObject({ key: '2025-W01', start: Date.UTC(2024, 11, 30) / 1000, end: Date.UTC(2025, 0, 6) / 1000 });
    expect(calendarPeriod(Date.UTC(2021, 0, 3) / 1000, 'week').key).toBe('2020-W53');
    expect(calendarPeriod(t, 'day').key).toBe('2025-01-01');
    expect(calendarPeriod(t, 'month')).toMatchObject({ key: '2025-01', end: Date.UTC(2025, 1, 1) / 1000 });
    for (const key of ['2025-W01', '2020-W53', '2025-01-01', '2025-01']) expect(periodFromKey(key)?.key).toBe(key);
    expect(periodFromKey('2025-W60')).toBeNull();
    expect(periodFromKey('2025-13')).toBeNull();
  });
});

describe('the simulator', () => {
  it('knows only the design\'s seven operations: channel-digest is refused in a scenario as before, and never appears in an output', () => {
    expect(() => parseScenario({ tree: { id: 'root', children: [{ id: 'x', match: { operation: 'channel-digest' } }] } })).toThrow(/match\.operation must be one of sync, download, transcribe, diarize, attribute-voices, attribute-words, digest \(got "channel-digest"\)/);
    expect(() => parseScenario({ engines: { 'channel-digest': { lane: 'cpu' } } })).toThrow(/engines/);
    const out = simulate(parseScenario({
      channels: [{ id: 'c', items: [{ id: 'v', publishedAt: 0, durationS: 60, have: ['download', 'transcribe', 'diarize', 'attribute-voices', 'attribute-words'] }] }],
      tree: { id: 'root', children: [{ id: 'all' }] },
    }));
    expect(JSON.stringify(out)).not.toContain('channel-digest');
    expect(Object.keys(out.metrics.latency)).toEqual(['sync', 'download', 'transcribe', 'diarize', 'attribute-voices', 'attribute-words', 'digest']);
    expect(out.trace!.filter((e) => e.event === 'start').map((e) => e.operation)).toEqual(['digest']);
  });
});
