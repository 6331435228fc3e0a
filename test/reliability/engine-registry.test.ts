// The engine registry the reliability tests stand on: without a usable GPU the test profile's GPU
// operations run on their CPU lanes (so the whole pipeline runs on CI), its faults reach exactly
// the job they name, the production profile refuses clearly where no engine is installed, and
// `engines.<operation>` decides which engines are enabled; a settings change builds again only the
// engines that read the changed setting.
import path from 'node:path';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { buildEngineRegistry, type EngineRegistry } from '../../src-main/engines/registry';
import { testAdapter } from '../../src-main/engines/test-engine/adapter';
import type { EngineEnvironment, EngineLaunch, JobContext } from '../../src-main/engines/adapter';
import type { ChannelRecord, ItemRecord } from '../../src-main/library/repository';
import { defaultSettings, type SettingsValues } from '../../src-shared/settings/settings-schema';
import type { OperationId } from '../../src-shared/catalog/operations';
import type { GpuReport } from '../../src-main/gates/gpu';
import { PRODUCTION_ADAPTERS } from '../../src-main/engines/registry';
import { extractiveAdapter } from '../../src-main/engines/extractive/adapter';
import { voiceprintMatchAdapter } from '../../src-main/engines/voiceprint-match/adapter';
import type { EngineAdapter } from '../../src-main/engines/adapter';

const noGpu: GpuReport = { controllers: [], usable: [], slots: 0, reason: 'No graphics controller was found.' };
const oneGpu: GpuReport = { controllers: [], usable: [], slots: 1, reason: null };
const dir = path.join(os.tmpdir(), 'backlot-registry-test');

function env(gpu = noGpu, settings: SettingsValues = defaultSettings()): EngineEnvironment {
  return { dataDir: dir, modelsDir: path.join(dir, 'models'), resourcesDir: dir, settings, gpu };
}
const lanes = (r: EngineRegistry) => Object.fromEntries(r.bindings.map((b) => [b.operation, b.lane]));
const channel = { id: 'c1', kind: 'folder', platform: 'folder', title: 'C', source: '/m', sync_interval_s: null, last_sync_at: null, settings_json: '{}', created_at: 0, removed_at: null } satisfies ChannelRecord;
const item = (id: string): ItemRecord => ({ id, channel_id: 'c1', external_id: id, title: id, published_at: 0, duration_s: 1, media_path: null, size_bytes: null, mtime_ms: null, fingerprint: null, media_state: 'local' });

async function inputOf(r: EngineRegistry, operation: OperationId, itemId: string): Promise<Record<string, unknown>> {
  const b = r.bindings.find((x) => x.operation === operation)!;
  const choice = r.choose(b, channel, item(itemId));
  if (!choice.ok) throw new Error(choice.code);
  const job = { item: item(itemId), channel } as unknown as JobContext;
  const launch = await choice.engine.adapter.launch(job) as Extract<EngineLaunch, { kind: 'process' }>;
  const rest = { ...launch.input };
  delete rest.item;
  delete rest.channel;
  return rest;
}

describe('engine registry, test profile', () => {
  it('binds GPU operations to the CPU lane when there is no GPU, and to the GPU when there is', async () => {
    expect(lanes(await buildEngineRegistry({ profile: 'test', env: env() }))).toMatchObject({ transcribe: 'cpu', diarize: 'cpu', digest: 'cpu' });
    expect(lanes(await buildEngineRegistry({ profile: 'test', env: env(oneGpu) }))).toMatchObject({ transcribe: 'gpu', diarize: 'gpu' });
    expect((await buildEngineRegistry({ profile: 'test', env: env() })).bindings.every((b) => b.preflight.ok)).toBe(true);
  });

  it('merges a fault into the job it names only, the operation-specific entry over the item one', async () => {
    const r = await buildEngineRegistry({ profile: 'test', env: env(), test: { chunkMs: 5, faults: { i1: { crash: 1, chunks: 2 }, 'transcribe:i1': { crash: 0 }, 'diarize:i2': { hang: 1 } } } });
    expect(await inputOf(r, 'transcribe', 'i1')).toEqual({ bytes: 4096, chunks: 2, chunkMs: 5, crash: 0 });
    expect(await inputOf(r, 'diarize', 'i1')).toEqual({ bytes: 4096, chunks: 2, chunkMs: 5, crash: 1 });
    expect(await inputOf(r, 'diarize', 'i2')).toEqual({ bytes: 4096, chunks: 4, chunkMs: 5, hang: 1 });
    expect(await inputOf(r, 'transcribe', 'i2')).toEqual({ bytes: 4096, chunks: 4, chunkMs: 5 });
  });

  it('binds a second engine of one operation on another lane beside the first', async () => {
    const r = await buildEngineRegistry({ profile: 'test', env: env(), extra: [testAdapter('digest', { id: 'test-remote', lane: { queueKey: 'remote', contendsFor: ['spend', 'network'] } })] });
    expect(r.bindings.filter((b) => b.operation === 'digest').map((b) => `${b.lane}:${b.engineId}`)).toEqual(['cpu:test', 'remote:test-remote']);
  });
});

describe('engine registry, production profile', () => {
  it('refuses clearly where an operation has no engine in this build, and GPU work without a GPU says so', async () => {
    const r = await buildEngineRegistry({ profile: 'production', env: env() });
    const absent = r.bindings.filter((b) => !PRODUCTION_ADAPTERS.some((a) => a.operation === b.operation));
    for (const b of absent) {
      expect(b.preflight.ok).toBe(false);
      expect(['NO_USABLE_GPU', 'ENGINE_NOT_INSTALLED']).toContain((b.preflight as { code: string }).code);
      expect(r.choose(b, channel, item('i1'))).toMatchObject({ ok: false });
    }
  });

  it('leaves an engine out that engines.<operation> does not name, and says so', async () => {
    const settings = { ...defaultSettings(), 'engines.digest': ['openai-compatible'] };
    const r = await buildEngineRegistry({ profile: 'production', env: env(noGpu, settings) });
    for (const e of r.engines.filter((x) => x.adapter.operation === 'digest' && x.adapter.id !== 'openai-compatible')) {
      expect(e.enabled).toBe(false);
      expect(e.preflight).toMatchObject({ ok: false, code: 'ENGINE_DISABLED' });
    }
  });
});

describe('engine registry, a settings change', () => {
  /** The adapter with its fingerprint calls counted: one per time its entry is built. */
  function counted(adapter: EngineAdapter): { adapter: EngineAdapter; builds: () => number } {
    let n = 0;
    return { adapter: { ...adapter, fingerprint: (e) => { n++; return adapter.fingerprint(e); } }, builds: () => n };
  }

  it('builds again only the engines that read the changed setting; the others keep their entry', async () => {
    const digest = counted(extractiveAdapter);
    const match = counted(voiceprintMatchAdapter);
    const extra = [digest.adapter, match.adapter];
    const before = defaultSettings();
    const first = await buildEngineRegistry({ profile: 'test', env: env(noGpu, before), extra });
    const entry = (r: EngineRegistry, id: string) => r.engines.find((e) => e.adapter.id === id)!;
    expect([digest.builds(), match.builds()]).toEqual([1, 1]);

    const after: SettingsValues = { ...before, 'digest.moments': before['digest.moments'] + 1 };
    const second = await buildEngineRegistry({ profile: 'test', env: env(noGpu, after), extra, previous: { registry: first, changed: 'digest.moments' } });
    // The digest engine reads digest.moments: built again, and its fingerprint has the new value.
    expect(digest.builds()).toBe(2);
    expect(entry(second, 'extractive')).not.toBe(entry(first, 'extractive'));
    expect(entry(second, 'extractive').fingerprint).toContain(`m=${after['digest.moments']}`);
    expect(entry(first, 'extractive').fingerprint).toContain(`m=${before['digest.moments']}`);
    // The speaker match reads only its threshold: the very same entry, never built again.
    expect(match.builds()).toBe(1);
    expect(entry(second, 'voiceprint-match')).toBe(entry(first, 'voiceprint-match'));
    // An engine that declares no setting keys is built again on any change.
    expect(entry(second, 'test')).not.toBe(entry(first, 'test'));

    // Its operation's engines.<operation> setting rebuilds it too, whatever keys it declares.
    const third = await buildEngineRegistry({ profile: 'test', env: env(noGpu, after), extra, previous: { registry: second, changed: 'engines.diarize' } });
    expect([digest.builds(), match.builds()]).toEqual([2, 1]);
    expect(entry(third, 'extractive')).toBe(entry(second, 'extractive'));
    await buildEngineRegistry({ profile: 'test', env: env(noGpu, after), extra, previous: { registry: third, changed: 'engines.digest' } });
    expect([digest.builds(), match.builds()]).toEqual([3, 1]);
  });
});
