// The engine registry: the list of adapters (one line per engine) and, for a host, which of them are
// enabled (`engines.<operation>`), what their preflight says and how they bind to lanes. The arbiter
// sees one binding per (operation, lane); the prepare step (units/unit-prepare.ts) picks the engine
// for each unit among the binding's engines (docs/architecture.md "Engines").
import { CATALOG, operationSpec, type Lane, type OperationId } from '../../src-shared/catalog/operations';
import { engineSettingKey, type SettingKey } from '../../src-shared/settings/settings-schema';
import type { ChannelRecord, ItemRecord } from '../library/repository';
import type { EngineBinding, Preflight } from '../arbiter/lanes';
import { baseLane, poolOf } from '../../src-shared/catalog/pool-lanes';
import type { CostModel, EngineAdapter, EngineEnvironment, EngineProfile } from './adapter';
import { testAdapters, type TestEngineOptions } from './test-engine/adapter';
import { ytDlpListingAdapter } from './yt-dlp-listing/adapter';
import { feedAdapter } from './feed/adapter';
import { folderScanAdapter } from './folder-scan/adapter';
import { ytDlpAdapter } from './yt-dlp/adapter';
import { httpAdapter } from './http/adapter';
import { sherpaOnnxGpuAdapter } from './sherpa-onnx-gpu/adapter';
import { sherpaOnnxCpuAdapter } from './sherpa-onnx-cpu/adapter';
import { voskXvectorAdapter } from './vosk-xvector/adapter';
import { voiceprintMatchAdapter } from './voiceprint-match/adapter';
import { wordTurnMergeAdapter } from './word-turn-merge/adapter';
import { extractiveAdapter } from './extractive/adapter';
import { openAiCompatibleAdapter } from './openai-compatible/adapter';
import { llamaCppAdapter } from './llama-cpp/adapter';
import { rollupAdapter } from './rollup/adapter';
import { pocketsphinxAdapter } from './pocketsphinx/adapter';
import { whisperCpuAdapter, whisperGpuAdapter } from './whisper-cpp/adapter';
import { publisherTranscriptAdapter } from './publisher-transcript/adapter';

/** Every production engine of this build, one line each. */
export const PRODUCTION_ADAPTERS: readonly EngineAdapter[] = [
  ytDlpListingAdapter,
  feedAdapter,
  folderScanAdapter,
  ytDlpAdapter,
  httpAdapter,
  sherpaOnnxGpuAdapter,
  sherpaOnnxCpuAdapter,
  voskXvectorAdapter,
  voiceprintMatchAdapter,
  wordTurnMergeAdapter,
  extractiveAdapter,
  openAiCompatibleAdapter,
  llamaCppAdapter,
  rollupAdapter,
  publisherTranscriptAdapter,
  whisperGpuAdapter,
  pocketsphinxAdapter,
  whisperCpuAdapter,
];

export interface RegisteredEngine {
  adapter: EngineAdapter;
  lane: Lane;
  enabled: boolean;
  preflight: Preflight;
  fingerprint: string;
  cost: CostModel;
}

export type EngineChoice = { ok: true; engine: RegisteredEngine } | { ok: false; code: string; message: string; params: Record<string, unknown> };

export interface EngineRegistry {
  profile: EngineProfile;
  /** Every engine of the profile, enabled or not, in list order. */
  engines: RegisteredEngine[];
  /** One per (operation, lane) that has an enabled engine, or that the catalog names when none is. */
  bindings: EngineBinding[];
  /** The engine for one unit: the first enabled engine on the binding's lane (riders first) that accepts the work and passed its preflight. */
  choose(binding: Pick<EngineBinding, 'operation' | 'lane'>, channel: ChannelRecord, item: ItemRecord | null): EngineChoice;
  /** A unit found the lane's configuration wrong (REMOTE_AUTH): the engine's preflight fails until rebuilt. */
  failPreflight(engineId: string, operation: OperationId, preflight: Extract<Preflight, { ok: false }>): EngineBinding | null;
}

export interface RegistryOptions {
  profile: EngineProfile;
  env: EngineEnvironment;
  test?: TestEngineOptions;
  /** Adapters added to the profile's list (tests: a second test engine on another lane); one with a listed adapter's id and operation replaces it. */
  extra?: readonly EngineAdapter[];
  /**
   * A settings change: the registry it replaces and the setting that changed. An engine that declares
   * its `settingKeys`, none of them (nor its `engines.<operation>`) the changed one, keeps its entry
   * (preflight, fingerprint, cost) as it was; the bindings are always worked out again.
   */
  previous?: { registry: EngineRegistry; changed: SettingKey };
}

/** Whether a settings change leaves this engine's entry as it was. */
function unaffected(adapter: EngineAdapter, changed: SettingKey): boolean {
  return adapter.settingKeys !== undefined && changed !== engineSettingKey(adapter.operation) && !adapter.settingKeys.includes(changed);
}

export function catalogLane(engineId: string, operation: OperationId): Lane | null {
  const e = operationSpec(operation).engines.find((x) => x.id === engineId);
  return e ? { queueKey: e.lane.queueKey, contendsFor: [...e.lane.contendsFor] } : null;
}

async function safePreflight(adapter: EngineAdapter, env: EngineEnvironment): Promise<Preflight> {
  try {
    return await adapter.preflight(env);
  } catch (e) {
    return { ok: false, code: 'PREFLIGHT_ERROR', message: `The ${adapter.id} engine's preflight could not finish: ${(e as Error)?.message ?? String(e)}` };
  }
}

export async function buildEngineRegistry(options: RegistryOptions): Promise<EngineRegistry> {
  const { profile, env } = options;
  const extra = options.extra ?? [];
  // An extra adapter with a profile adapter's id and operation stands in for it (tests).
  const own = (profile === 'test' ? testAdapters(options.test) : PRODUCTION_ADAPTERS.filter((a) => a.profile === 'production'))
    .filter((a) => !extra.some((x) => x.id === a.id && x.operation === a.operation));
  const adapters = [...own, ...extra];
  const engines: RegisteredEngine[] = await Promise.all(adapters.map(async (adapter): Promise<RegisteredEngine> => {
    const kept = options.previous && unaffected(adapter, options.previous.changed)
      ? options.previous.registry.engines.find((e) => e.adapter === adapter && e.preflight.ok) : undefined;
    // A failed preflight is always asked again: a setting may be what fixes it.
    if (kept) return kept;
    const lane = adapter.lane?.(env) ?? catalogLane(adapter.id, adapter.operation);
    if (!lane) throw new Error(`engine ${adapter.id} is not in the catalog for ${adapter.operation} and names no lane`);
    const enabled = profile === 'test' || env.settings[engineSettingKey(adapter.operation)].includes(adapter.id);
    return {
      adapter, lane, enabled,
      preflight: enabled ? await safePreflight(adapter, env) : { ok: false, code: 'ENGINE_DISABLED', message: `The ${adapter.id} engine is not enabled (setting ${engineSettingKey(adapter.operation)}).` },
      fingerprint: `${adapter.id}@${await adapter.fingerprint(env)}`,
      cost: adapter.cost(env),
    };
  }));
  const order = (op: OperationId, id: string): number => {
    if (profile === 'test') return 0;
    const i = env.settings[engineSettingKey(op)].indexOf(id);
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  const enabledOn = (op: OperationId, lane: string): RegisteredEngine[] => engines
    .filter((e) => e.enabled && e.adapter.operation === op && e.lane.queueKey === lane)
    .sort((a, b) => order(op, a.adapter.id) - order(op, b.adapter.id));

  const bindings: EngineBinding[] = [];
  for (const op of CATALOG) {
    // A rider binds a lane of its own only when no other engine of the operation is enabled.
    const enabled = engines.filter((e) => e.enabled && e.adapter.operation === op.id);
    const binders = enabled.some((e) => !e.adapter.ridesEveryLane) ? enabled.filter((e) => !e.adapter.ridesEveryLane) : enabled;
    const lanes = [...new Set(binders.map((e) => e.lane.queueKey))];
    for (const lane of lanes) bindings.push(bindingOf(op.id, lane, enabledOn(op.id, lane)));
    if (lanes.length === 0) bindings.push(absentBinding(op.id, profile, env));
  }

  return {
    profile, engines, bindings,
    choose(binding, channel, item) {
      // Riders (ridesEveryLane) of the operation come first on every lane; the lane's own engines after.
      // A pool lane (`gpu@studio`) runs only remotable engines of its base lane; the worker answers for their preflight.
      const pool = poolOf(binding.lane);
      const base = baseLane(binding.lane);
      const riders = engines.filter((e) => e.enabled && e.adapter.operation === binding.operation && e.adapter.ridesEveryLane && e.lane.queueKey !== base);
      const candidates = [...riders, ...enabledOn(binding.operation, base)]
        .filter((e) => (pool === null || e.adapter.remotable === true) && (e.adapter.accepts?.(channel, item, env) ?? true));
      const ready = candidates.find((e) => pool !== null || e.preflight.ok);
      if (ready) return { ok: true, engine: ready };
      const first = candidates[0]?.preflight;
      if (first && !first.ok) return { ok: false, code: 'ENGINE_UNAVAILABLE', message: first.message, params: { engine: candidates[0].adapter.id, code: first.code } };
      return { ok: false, code: 'NO_ENGINE_ACCEPTS', message: `No enabled ${binding.operation} engine on the ${binding.lane} lane handles ${item ? 'this item' : 'this channel'} (${channel.kind}).`, params: { operation: binding.operation, lane: binding.lane, kind: channel.kind } };
    },
    failPreflight(engineId, operation, preflight) {
      const engine = engines.find((e) => e.adapter.id === engineId && e.adapter.operation === operation);
      if (!engine) return null;
      engine.preflight = preflight;
      const i = bindings.findIndex((b) => b.operation === operation && b.lane === engine.lane.queueKey);
      if (i < 0) return null;
      bindings[i].preflight = bindingOf(operation, engine.lane.queueKey, enabledOn(operation, engine.lane.queueKey)).preflight;
      return bindings[i];
    },
  };
}

/** A lane's binding: the cost of its preferred ready engine; ok while any of its engines passed. */
function bindingOf(op: OperationId, lane: string, engines: RegisteredEngine[]): EngineBinding {
  const own = engines.some((e) => !e.adapter.ridesEveryLane) ? engines.filter((e) => !e.adapter.ridesEveryLane) : engines;
  const lead = own.find((e) => e.preflight.ok) ?? own[0];
  return {
    operation: op, engineId: lead.adapter.id, lane,
    secondsFixed: lead.cost.secondsFixed, secondsPerMediaSecond: lead.cost.secondsPerMediaSecond,
    usdFixed: lead.cost.usdFixed ?? 0, usdPerMediaSecond: lead.cost.usdPerMediaSecond ?? 0,
    preflight: lead.preflight,
    remotable: engines.some((e) => e.adapter.remotable === true),
  };
}

/** No enabled engine can perform the operation: its catalog lane shows why and never starts. */
function absentBinding(op: OperationId, profile: EngineProfile, env: EngineEnvironment): EngineBinding {
  const engine = operationSpec(op).engines[0];
  const installed = PRODUCTION_ADAPTERS.some((a) => a.operation === op);
  const preflight: Preflight = profile === 'production' && installed
    ? { ok: false, code: 'NO_ENGINE_ENABLED', message: `No ${op} engine is enabled; set ${engineSettingKey(op)} to one of: ${operationSpec(op).engines.map((e) => e.id).join(', ')}.` }
    : engine.lane.queueKey === 'gpu' && env.gpu.slots === 0
      ? { ok: false, code: 'NO_USABLE_GPU', message: env.gpu.reason ?? 'No usable GPU.' }
      : { ok: false, code: 'ENGINE_NOT_INSTALLED', message: `The engine for ${op} is not installed in this build.` };
  return { operation: op, engineId: engine.id, lane: engine.lane.queueKey, secondsFixed: 0, secondsPerMediaSecond: 0, usdFixed: 0, usdPerMediaSecond: 0, preflight };
}
