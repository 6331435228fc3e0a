// The preview's in-memory simulation gives the exact simulation's answer (issue 19 part 3,
// docs/scheduling.md "The preview's in-memory simulation"): on a generated library in a real SQLite
// host, for trees that exercise every rule (the default tree, a leaf per channel, passive posture,
// weighted-fair, round-robin, maxWorkers, every order, new uploads) and live states (a paused lane,
// a failed preflight, the disk gate, the spend cap, the GPU yield), the whole trace (every start and
// end, with its node, run and times), the metrics and the holds at the end are equal, and so is the
// preview's answer built from them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Host } from '../../src-main/host/host';
import { loadCorpus } from '../../src-main/bench/load-corpus';
import { generateCorpus } from '../../src-shared/corpus/generate';
import { joinSegments, NEW_UPLOAD_AT_S, previewOutcome, previewScenario, type LiveState } from '../../src-main/sim/preview';
import { holdsAtEnd, PREVIEW_HOLDS_EXPLAINED } from '../../src-main/sim/preview-detail';
import { parseScenario } from '../../src-main/sim/scenario';
import { simulate } from '../../src-main/sim/simulate';
import { fastRefusal, fastSimulate } from '../../src-main/sim/fast/fast-simulate';
import { defaultBindings, DEFAULT_LANES } from '../../src-main/arbiter/lanes';
import { defaultSettings } from '../../src-shared/settings/settings-schema';
import { defaultPolicyTree } from '../../src-shared/policy/default-tree';
import { perChannelTree } from '../../src-main/bench/per-channel-tree';
import type { PolicyNode } from '../../src-shared/policy/tree';
import type { OperationId } from '../../src-shared/catalog/operations';
import type { PreviewHoldDto } from '../../src-shared/api/window-contract';

let dir: string;
let host: Host;
const NOW = 2_000_000;
const CHANNELS = 6;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-preview-fast-'));
  host = new Host({ databaseFile: path.join(dir, 'backlot.sqlite'), durable: false });
  loadCorpus(host, generateCorpus({
    seed: 11, channels: CHANNELS, items: 360, durationS: { min: 120, max: 3600 },
    have: { download: 0.6, transcribe: 0.35, diarize: 0.25, 'attribute-voices': 0.15, 'attribute-words': 0.1, digest: 0.05 },
  }), NOW);
});
afterAll(() => {
  host.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function live(overrides: Partial<LiveState> = {}): LiveState {
  return {
    now: NOW, lanes: Object.values(DEFAULT_LANES).map((l) => ({ ...l })), paused: [],
    bindings: defaultBindings(), settings: defaultSettings(), freeBytes: null, spentUsd: 0, ...overrides,
  };
}

const DAY = 86_400;
const TREES: Record<string, PolicyNode> = {
  default: defaultPolicyTree(),
  perChannel: perChannelTree(CHANNELS),
  orders: {
    id: 'root', mode: 'round-robin', children: [
      { id: 'sync', match: { operation: 'sync' } },
      { id: 'heavy', match: { operation: 'download' }, order: 'heaviest', maxWorkers: 1 },
      { id: 'cheap', match: { operation: 'transcribe' }, order: 'cheapest' },
      { id: 'old', order: 'oldest', match: { publishedWithinS: 400 * DAY } },
      { id: 'rest', order: 'newest' },
    ],
  },
  weighted: {
    id: 'root', children: [
      { id: 'new', match: { publishedWithinS: 60 * DAY }, maxWorkers: 2 },
      { id: 'fair', mode: 'weighted-fair', posture: 'passive', children: [
        { id: 'a', match: { channel: ['gc1', 'gc2'] }, weight: 5, order: 'oldest' },
        { id: 'b', match: { channel: ['gc3'] }, weight: 1, order: 'cheapest', maxWorkers: 1 },
        { id: 'c', match: { platform: ['youtube'] }, weight: 1, order: 'heaviest' },
        { id: 'd', weight: 2, match: { lane: 'cpu' } },
      ] },
    ],
  },
  unmatched: {
    id: 'root', children: [
      { id: 'dl', match: { operation: 'download' } },
      { id: 'tr', match: { operation: 'transcribe', lane: 'gpu' }, order: 'oldest' },
    ],
  },
};

type Compared = { trace: unknown; metrics: unknown; holds: Map<OperationId, PreviewHoldDto[]> };

function both(scenario: Record<string, unknown>, tree: unknown): { exact: Compared; fast: Compared } {
  const s = parseScenario({ ...scenario, tree });
  expect(fastRefusal(s)).toBeNull();
  let holds = new Map<OperationId, PreviewHoldDto[]>();
  const exactOut = simulate(s, { atEnd: (h, a, t) => { holds = holdsAtEnd(h, a, t, 'preview:new-upload'); } });
  const fast = fastSimulate(parseScenario({ ...scenario, tree }), { holds: { skipItem: 'preview:new-upload', limit: PREVIEW_HOLDS_EXPLAINED } });
  const strip = (m: Record<string, unknown>) => ({ ...m, wallMs: 0 });
  return {
    exact: { trace: exactOut.trace, metrics: strip(exactOut.metrics), holds },
    fast: { trace: fast.out.trace, metrics: strip(fast.out.metrics), holds: fast.holds },
  };
}

function expectSame(scenario: Record<string, unknown>, tree: unknown): Compared {
  const { exact, fast } = both(scenario, tree);
  expect(fast.trace).toEqual(exact.trace);
  expect(fast.metrics).toEqual(exact.metrics);
  expect([...fast.holds]).toEqual([...exact.holds]);
  return exact;
}

describe('the in-memory preview simulation gives the exact simulation\'s answer', () => {
  for (const [name, tree] of Object.entries(TREES)) {
    it(`tree ${name}, nothing paused`, () => {
        const exact = expectSame(previewScenario(host.db, live()).scenario, tree);
      expect((exact.trace as unknown[]).length).toBeGreaterThan(100);
    });
  }

  it('a paused lane: the same holds named at the end', () => {
    const exact = expectSame(previewScenario(host.db, live({ paused: ['gpu'] })).scenario, TREES.default);
    expect(exact.holds.get('transcribe')?.[0]?.code).toBe('LANE_PAUSED');
  });

  it('everything paused, and a failed preflight', () => {
    const held = expectSame(previewScenario(host.db, live({ paused: ['*'] })).scenario, TREES.weighted);
    expect(held.trace).toEqual([]);
    expect(held.holds.get('download')?.[0]).toMatchObject({ code: 'LANE_PAUSED', params: { lane: 'download', all: true } });
    const bindings = defaultBindings().map((b) => (b.operation === 'digest' ? { ...b, preflight: { ok: false as const, code: 'MODEL_MISSING', message: 'no model' } } : b));
    expectSame(previewScenario(host.db, live({ bindings })).scenario, TREES.default);
  });

  it('the disk gate (downloads reserve and use space), the spend cap on a remote lane, the GPU yield', () => {
    const settings = { ...defaultSettings(), 'diskGate.drainingBelowBytes': 2e9, 'diskGate.shutBelowBytes': 1e9, 'spend.capUsd': 0.5 };
    const remote = defaultBindings().map((b) => (b.operation === 'digest' ? { ...b, lane: 'remote', usdFixed: 0.01, usdPerMediaSecond: 0.00001 } : b));
    const lanes = Object.values(DEFAULT_LANES).map((l) => ({ ...l, ...(l.queueKey === 'cpu' ? { contendsFor: [...l.contendsFor, 'gpu' as const] } : {}) }));
    const built = previewScenario(host.db, live({ settings, bindings: remote, lanes, freeBytes: 3e9 }));
    expectSame(built.scenario, TREES.default);
    expectSame(built.scenario, TREES.orders);
  });

  it('channels that sync on an interval', () => {
    const scenario = {
      engines: { transcribe: { lane: 'gpu', secondsFixed: 40 } },
      channels: [
        { id: 'a', syncIntervalS: 100, items: [1, 2, 3, 4].map((i) => ({ id: `a${i}`, publishedAt: -i * 1000, durationS: 60, have: ['download'] })) },
        { id: 'b', syncIntervalS: 250, items: [1, 2, 3].map((i) => ({ id: `b${i}`, publishedAt: -i * 900, durationS: 60 })) },
      ],
      events: [{ at: 30, type: 'item', channel: 'b', item: { id: 'b9', publishedAt: 30, durationS: 10 } }, { at: 50, type: 'pause', lane: 'cpu' }, { at: 400, type: 'resume', lane: 'cpu' }],
    };
    expectSame(scenario, defaultPolicyTree());
    expectSame(scenario, TREES.orders);
  });

  it('the preview answer is the same through either simulation', () => {
    const built = previewScenario(host.db, live({ paused: ['cpu'] }));
    for (const tree of [TREES.default, TREES.perChannel]) {
      const fast = previewOutcome(built, tree);
      expect(fast).toEqual(previewOutcome(built, tree, { exact: true }));
      // The timeline kept per slot is joinSegments' answer over the trace's units.
      const trace = simulate(parseScenario({ ...built.scenario, tree })).trace as { t: number; event: string; lane: string; slot: number; operation: OperationId }[];
      const open = new Map<string, number>();
      const segments: { lane: string; slot: number; operation: OperationId; start: number; end: number; units: number }[] = [];
      for (const e of trace) {
        const key = `${e.lane}/${e.slot}`;
        if (e.event === 'start') open.set(key, e.t);
        else if (e.event === 'end') segments.push({ lane: e.lane, slot: e.slot, operation: e.operation, start: open.get(key)!, end: e.t, units: 1 });
      }
      expect(fast.timeline).toEqual(joinSegments(segments, Math.max(...trace.map((e) => e.t))));
    }
    expect(NEW_UPLOAD_AT_S).toBe(1);
  });

  it('scenarios it does not model are left to the exact simulation', () => {
    expect(fastRefusal(parseScenario({ failures: [{ operation: 'transcribe', item: 'x', times: 1, code: 'E' }], channels: [{ id: 'c', items: [{ id: 'x', publishedAt: 0 }] }] }))).toBe('failures');
    expect(fastRefusal(parseScenario({ events: [{ at: 5, type: 'restart' }] }))).toBe('restart events');
    expect(fastRefusal(parseScenario({ until: 10 }))).toBe('until');
    expect(fastRefusal(parseScenario({ pools: { studio: { gpu: { slots: 1 } } } }))).toBe('pool lanes');
  });
});
