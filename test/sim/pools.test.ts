// Pool lanes in the arbiter (docs/pools.md "Pool lanes in the tree", docs/scheduling.md "Pools in a
// scenario"): a pool lane is one more slot of its base lane under the same rules. The worked example
// gives the same start order with its gpu slot as a pool slot; passive work never takes a pool slot
// while a new upload waits; `gpu@studio`, `gpu@*` and `gpu` match as documented; holds block with
// their code; a leaf that names no lane lets cpu work run on `cpu@studio` while the local cpu lane is
// paused.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { channel, explained, items, leaf, run, TRANSCRIBE_ONLY } from './run';
import os from 'node:os';
import { parseScenario, ScenarioError } from '../../src-main/sim/scenario';
import { Host } from '../../src-main/host/host';
import { loadCorpus } from '../../src-main/bench/load-corpus';
import { generateCorpus } from '../../src-shared/corpus/generate';
import { previewOutcome, previewScenario, type LiveState } from '../../src-main/sim/preview';
import { defaultBindings, DEFAULT_LANES, type LaneConfig } from '../../src-main/arbiter/lanes';
import { defaultSettings } from '../../src-shared/settings/settings-schema';
import { defaultPolicyTree } from '../../src-shared/policy/default-tree';

const line = (s: { t: number; lane?: string; slot?: number; item?: string; node?: string }) => `${s.t} ${s.lane}/${s.slot} ${s.node} ${s.item}`;

function workedExample(): Record<string, unknown> {
  const doc = fs.readFileSync(path.resolve(__dirname, '../../docs/scheduling.md'), 'utf8');
  const example = doc.slice(doc.indexOf('## Worked example'));
  return JSON.parse(/```json\n([\s\S]*?)```/.exec(example)![1]) as Record<string, unknown>;
}

describe('pool lanes in the simulator', () => {
  it('the worked example gives the same start order with its gpu slot as a pool slot', () => {
    const local = run(workedExample());
    const pooled = run({ ...workedExample(), lanes: { gpu: { slots: 0 } }, pools: { studio: { gpu: { slots: 1 } } } });
    const order = (r: ReturnType<typeof run>) => r.starts.map((s) => `${s.t} ${s.node} ${s.item} ${s.run}`);
    expect(order(pooled)).toEqual(order(local));
    expect(order(pooled)).toHaveLength(6);
    expect(pooled.starts.every((s) => s.lane === 'gpu@studio')).toBe(true);
    // The same answer at t = 26; the local gpu lane with no slot is only mentioned beside it.
    expect(explained(pooled, 'p2', 'transcribe').reason).toMatchObject({ code: 'PASSIVE_BEHIND', params: { node: 'backlog' } });
    expect(pooled.metrics.lanes['gpu@studio']).toMatchObject({ slots: 1, busyS: 60 });
    expect(pooled.metrics.nodes).toEqual(local.metrics.nodes);
  });

  it('a passive backlog never takes a pool slot while a new upload waits for one', () => {
    const r = run({
      lanes: { gpu: { slots: 1 } },
      pools: { studio: { gpu: { slots: 1 } } },
      engines: TRANSCRIBE_ONLY,
      channels: [channel('c', items('old', 3, { publishedAt: (i) => -200000 - i }))],
      tree: { id: 'root', children: [leaf('new', { match: { publishedWithinS: 86400 } }), leaf('backlog', { posture: 'passive' })] },
      events: [
        // Two new uploads at t = 5: one local slot and one pool slot are both busy with the backlog.
        { at: 5, type: 'item', channel: 'c', item: { id: 'n1', publishedAt: 5, durationS: 0, have: ['download'] } },
        { at: 5, type: 'item', channel: 'c', item: { id: 'n2', publishedAt: 5, durationS: 0, have: ['download'] } },
        { at: 5, type: 'item', channel: 'c', item: { id: 'n3', publishedAt: 5, durationS: 0, have: ['download'] } },
      ],
    });
    expect(r.starts.map(line)).toEqual([
      '0 gpu/0 backlog old1', '0 gpu@studio/0 backlog old2',
      // At t = 10 both slots free: the new uploads take them, and the backlog waits while one still waits.
      '10 gpu/0 new n1', '10 gpu@studio/0 new n2',
      '20 gpu/0 new n3',
      // The pool slot stays free at t = 20: n3 (non-passive) runs on the gpu kind of slot, so passive work waits.
      '30 gpu/0 backlog old3',
    ]);
  });

  it('gpu@studio matches that pool lane, gpu@* any pool gpu lane, gpu only the local lane', () => {
    const base = {
      lanes: { gpu: { slots: 1 } },
      pools: { studio: { gpu: { slots: 1 } }, attic: { gpu: { slots: 1 } } },
      engines: TRANSCRIBE_ONLY,
      channels: [channel('c', items('x', 3))],
    };
    const lanesOf = (lane: string) => [...new Set(run({ ...base, tree: { id: 'root', children: [leaf('t', { match: { lane } })] } }).starts.map((s) => s.lane))];
    expect(lanesOf('gpu@studio')).toEqual(['gpu@studio']);
    expect(lanesOf('gpu@*')).toEqual(['gpu@attic', 'gpu@studio']);
    expect(lanesOf('gpu')).toEqual(['gpu']);
    // No lane named: every gpu slot, local first, then the pools by name.
    expect(run({ ...base, tree: { id: 'root', children: [leaf('t')] } }).starts.map(line)).toEqual(['0 gpu/0 t x1', '0 gpu@attic/0 t x2', '0 gpu@studio/0 t x3']);
    // A group's gpu@* and a leaf's gpu@studio narrow to gpu@studio; gpu and gpu@studio share no lane.
    const nested = (outer: string, inner: string) => run({ ...base, tree: { id: 'root', match: { lane: outer }, children: [leaf('t', { match: { lane: inner } })] } }).starts.map((s) => s.lane);
    expect([...new Set(nested('gpu@*', 'gpu@studio'))]).toEqual(['gpu@studio']);
    expect(nested('gpu', 'gpu@studio')).toEqual([]);
    // A pool that does not exist yet is allowed and matches nothing.
    expect(lanesOf('gpu@nas')).toEqual([]);
  });

  it('with the local cpu lane paused, cpu work of a leaf that names no lane runs on cpu@studio', () => {
    const r = run({
      lanes: { cpu: { slots: 2 } },
      pools: { studio: { cpu: { slots: 1 } } },
      engines: { diarize: { lane: 'cpu', secondsFixed: 10 } },
      channels: [channel('c', items('x', 2, { have: ['download', 'transcribe'] }))],
      tree: { id: 'root', children: [leaf('d', {}, 'diarize')] },
      events: [{ at: 0, type: 'pause', lane: 'cpu' }],
    });
    expect(r.starts.map(line)).toEqual(['0 cpu@studio/0 d x1', '10 cpu@studio/0 d x2']);
  });

  it("a pool lane's hold blocks it with its code until the pool takes work again; slots follow its workers", () => {
    const r = run({
      lanes: { gpu: { slots: 0 } },
      pools: { studio: { gpu: { slots: 1, hold: 'POOL_OFFLINE' } } },
      engines: TRANSCRIBE_ONLY,
      channels: [channel('c', items('x', 4))],
      tree: { id: 'root', children: [leaf('t')] },
      events: [
        { at: 1, type: 'explain', item: 'x1', operation: 'transcribe' },
        { at: 50, type: 'pool', pool: 'studio', lane: 'gpu', hold: null, slots: 2 },
        { at: 55, type: 'pool', pool: 'studio', lane: 'gpu', hold: 'WORKER_LOST' },
        { at: 56, type: 'explain', item: 'x3', operation: 'transcribe' },
        { at: 70, type: 'pool', pool: 'studio', lane: 'gpu', hold: null, slots: 1 },
      ],
    });
    expect(explained(r, 'x1', 'transcribe', 1).reason).toEqual({ code: 'POOL_OFFLINE', params: { lane: 'gpu@studio', also: [{ code: 'LANE_NO_SLOTS', params: { lane: 'gpu' } }] } });
    expect(explained(r, 'x3', 'transcribe', 56).reason?.code).toBe('WORKER_LOST');
    // Two slots once the hold lifts; the units that ran through the WORKER_LOST hold finish; one slot after 70.
    expect(r.starts.map(line)).toEqual(['50 gpu@studio/0 t x1', '50 gpu@studio/1 t x2', '70 gpu@studio/0 t x3', '80 gpu@studio/0 t x4']);
  });

  it('the GPU yield is per machine: a pool lane yields only to transcription on its own pool', () => {
    const r = run({
      lanes: { gpu: { slots: 1 }, gpux: { slots: 1, contendsFor: ['gpu'] } },
      pools: { studio: { gpux: { slots: 1 } } },
      engines: { transcribe: { lane: 'gpu', secondsFixed: 10 }, diarize: { lane: 'gpux', secondsFixed: 5 } },
      channels: [channel('c', items('x', 2))],
      tree: { id: 'root', children: [leaf('t'), leaf('d', {}, 'diarize')] },
      events: [{ at: 1, type: 'explain', item: 'x2', operation: 'diarize' }],
    });
    // The local gpux lane gives the GPU to the local transcription; gpux@studio is another machine's GPU.
    expect(r.starts.filter((s) => s.t === 0).map((s) => `${s.lane} ${s.operation}`)).toEqual(['gpu transcribe', 'gpux@studio diarize']);
    expect(r.starts.filter((s) => s.lane === 'gpux').every((s) => s.t >= 10)).toBe(true);
    expect(explained(r, 'x2', 'diarize', 1).reason).toMatchObject({ code: 'GPU_YIELD', params: { lane: 'gpux', to: 'gpu' } });
  });

  it('quiet hours may name a pool lane or every pool lane of a base', () => {
    const r = run({
      lanes: { gpu: { slots: 1 } },
      pools: { studio: { gpu: { slots: 1 } } },
      engines: TRANSCRIBE_ONLY,
      channels: [channel('c', items('x', 2))],
      tree: { id: 'root', children: [leaf('t')] },
      settings: { quietHours: [{ lane: 'gpu@*', from: '00:00', to: '01:00' }] },
    });
    expect(r.starts.map(line)).toEqual(['0 gpu/0 t x1', '10 gpu/0 t x2']);
  });
});

describe('scenario pools are checked', () => {
  const refusal = (s: Record<string, unknown>) => {
    try {
      parseScenario(s);
    } catch (e) {
      if (e instanceof ScenarioError) return { field: e.field, code: e.code, message: e.message };
      throw e;
    }
    throw new Error('accepted');
  };

  it('refuses an ill-formed pool name, an unknown base lane and an undeclared pool lane in an event', () => {
    expect(refusal({ pools: { Studio: { gpu: { slots: 1 } } } })).toMatchObject({ field: 'pools.Studio.gpu', code: 'POOL_NAME_INVALID' });
    expect(refusal({ pools: { studio: { tpu: { slots: 1 } } } })).toMatchObject({ field: 'pools.studio.tpu', code: 'POOL_LANE_UNKNOWN' });
    expect(refusal({ pools: { studio: { gpu: { slots: -1 } } } }).field).toBe('pools.studio.gpu.slots');
    expect(refusal({ events: [{ at: 1, type: 'pool', pool: 'studio', lane: 'gpu', slots: 1 }] })).toMatchObject({ field: 'events[0].pool', code: 'POOL_LANE_UNDECLARED' });
  });

  it('refuses an ill-formed lane in the tree with one sentence, and allows a pool that does not exist yet', () => {
    const r = refusal({ tree: { id: 'root', children: [{ id: 't', match: { lane: 'gpu@' } }] } });
    expect(r.field).toBe('tree.children[0].match.lane');
    expect(r.message).toContain('"gpu@" is not a lane name');
    expect(refusal({ tree: { id: 'root', children: [{ id: 't', match: { lane: 'tpu@studio' } }] } }).message).toContain('"tpu@studio" names no lane');
    expect(parseScenario({ tree: { id: 'root', children: [{ id: 't', match: { lane: 'gpu@studio' } }] } }).tree).toBeTruthy();
  });

  it('a scenario without pools parses exactly as before: no pool lanes, the same lanes', () => {
    const s = parseScenario({ engines: TRANSCRIBE_ONLY });
    expect(s.poolLanes).toEqual([]);
    expect(s.laneOrder).toEqual(['sync', 'download', 'gpu', 'cpu', 'remote']);
    expect(s.baseLanes).toEqual(s.laneOrder);
  });
});

describe('the what-if preview with pool lanes', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-preview-pools-'));
  const host = new Host({ databaseFile: path.join(dir, 'backlot.sqlite'), durable: false });
  const NOW = 1_000_000;
  loadCorpus(host, generateCorpus({ seed: 7, channels: 2, items: 30, durationS: { min: 300, max: 900 }, have: { download: 1 } }), NOW);
  afterAll(() => {
    host.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const live = (pool: LaneConfig): LiveState => ({
    now: NOW, lanes: [...Object.values(DEFAULT_LANES).map((l) => ({ ...l, slots: l.queueKey === 'gpu' ? 0 : l.slots })), pool], paused: [],
    bindings: defaultBindings(), settings: defaultSettings(), freeBytes: null, spentUsd: 0,
  });

  it('declares the host pool lanes with their slots and holds; a held pool lane does no work', () => {
    const open = previewScenario(host.db, live({ queueKey: 'gpu@studio', slots: 1, contendsFor: ['gpu'], pool: 'studio', poolHold: null }));
    expect(open.scenario.pools).toEqual({ studio: { gpu: { slots: 1, hold: null } } });
    expect(Object.keys(open.scenario.lanes as object)).not.toContain('gpu@studio');
    expect(previewOutcome(open, defaultPolicyTree()).operations.find((o) => o.operation === 'transcribe')?.finishesAtS).toBeGreaterThan(0);
    const held = previewScenario(host.db, live({ queueKey: 'gpu@studio', slots: 1, contendsFor: ['gpu'], pool: 'studio', poolHold: { code: 'POOL_OFFLINE', params: {} } }));
    expect(held.scenario.pools).toEqual({ studio: { gpu: { slots: 1, hold: 'POOL_OFFLINE' } } });
    expect(previewOutcome(held, defaultPolicyTree()).operations.find((o) => o.operation === 'transcribe')?.finishesAtS).toBeNull();
  });
});
