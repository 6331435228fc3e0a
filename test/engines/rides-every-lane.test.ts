// An engine that takes only some items rides on every lane of its operation (docs/architecture.md
// "Engines"): publisher-transcript is chosen first for an item offering a transcript on the cpu and
// the gpu lane alike, never for one that offers none or whose channel is local-only, makes no lane
// binding of its own beside the local engines, never sets a lane's cost, and binds its catalog lane
// only when it is the one transcribe engine enabled.
import path from 'node:path';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { buildEngineRegistry } from '../../src-main/engines/registry';
import type { EngineEnvironment } from '../../src-main/engines/adapter';
import type { ChannelRecord, ItemRecord } from '../../src-main/library/repository';
import type { GpuReport } from '../../src-main/gates/gpu';
import { defaultSettings, type SettingsValues } from '../../src-shared/settings/settings-schema';

const oneGpu: GpuReport = { controllers: [], usable: [], slots: 1, reason: null };
const dir = path.join(os.tmpdir(), 'backlot-rides-test');
const env = (settings: Partial<SettingsValues> = {}): EngineEnvironment => ({ dataDir: dir, modelsDir: path.join(dir, 'models'), resourcesDir: dir, settings: { ...defaultSettings(), ...settings }, gpu: oneGpu });
const feed = (settings: Record<string, unknown> = {}): ChannelRecord => ({ id: 'f', kind: 'feed', platform: 'feed', title: 'F', source: 'http://127.0.0.1/f', sync_interval_s: null, last_sync_at: null, settings_json: JSON.stringify(settings), created_at: 0, removed_at: null });
const offer = JSON.stringify([{ url: 'http://127.0.0.1/t.vtt', type: 'text/vtt', language: 'en', rel: null }]);
const item = (transcripts: string | null, fallback: string | null = null): ItemRecord => ({
  id: 'i', channel_id: 'f', external_id: 'i', title: 'i', published_at: 0, duration_s: 10, media_path: '/m.mp3', size_bytes: null, mtime_ms: null,
  fingerprint: null, media_state: 'local', transcripts_json: transcripts, transcript_fallback: fallback,
});
const chosen = (r: Awaited<ReturnType<typeof buildEngineRegistry>>, lane: string, channel: ChannelRecord, it: ItemRecord) => {
  const c = r.choose({ operation: 'transcribe', lane }, channel, it);
  return c.ok ? c.engine.adapter.id : c.code;
};

describe('ridesEveryLane', () => {
  it('is tried first on every transcription lane for the items it accepts, and only for those', async () => {
    const r = await buildEngineRegistry({ profile: 'production', env: env() });
    const transcribe = r.bindings.filter((b) => b.operation === 'transcribe');
    // No binding of its own, and no lane's cost is its cost.
    expect(transcribe.map((b) => b.lane).sort()).toEqual(['cpu', 'gpu']);
    expect(transcribe.map((b) => b.engineId)).not.toContain('publisher-transcript');
    for (const lane of ['cpu', 'gpu']) expect(chosen(r, lane, feed(), item(offer))).toBe('publisher-transcript');
    // No offer, a remembered refusal of this very offer, or a local-only channel: the lane's own engines.
    for (const it of [item(null), item(offer, JSON.stringify({ code: 'PUBLISHER_TRANSCRIPT_NOT_FOUND', url: 'http://127.0.0.1/t.vtt' }))]) {
      expect(chosen(r, 'cpu', feed(), it)).not.toBe('publisher-transcript');
    }
    expect(chosen(r, 'cpu', feed({ 'transcripts.source': 'local-only' }), item(offer))).not.toBe('publisher-transcript');
    // A refusal of an older offer does not hold back a new one.
    expect(chosen(r, 'cpu', feed(), item(offer, JSON.stringify({ code: 'PUBLISHER_TRANSCRIPT_NOT_FOUND', url: 'http://127.0.0.1/old.vtt' })))).toBe('publisher-transcript');
  });

  it('follows the library setting, a channel overriding it both ways', async () => {
    const r = await buildEngineRegistry({ profile: 'production', env: env({ 'transcripts.source': 'local-only' }) });
    expect(chosen(r, 'cpu', feed(), item(offer))).not.toBe('publisher-transcript');
    expect(chosen(r, 'cpu', feed({ 'transcripts.source': 'prefer-source' }), item(offer))).toBe('publisher-transcript');
  });

  it('binds its catalog lane when it is the only transcribe engine enabled, and refuses what it does not accept there', async () => {
    const r = await buildEngineRegistry({ profile: 'production', env: env({ 'engines.transcribe': ['publisher-transcript'] }) });
    expect(r.bindings.filter((b) => b.operation === 'transcribe').map((b) => [b.lane, b.engineId])).toEqual([['cpu', 'publisher-transcript']]);
    expect(chosen(r, 'cpu', feed(), item(offer))).toBe('publisher-transcript');
    expect(chosen(r, 'cpu', feed(), item(null))).toBe('NO_ENGINE_ACCEPTS');
  });
});
