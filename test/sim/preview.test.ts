// The what-if preview's scenario and answer: built from the live library (states, lanes, pauses,
// engine costs and preflights), a large library sampled evenly with its scale, and the answer read
// from the simulation: when each operation's backlog finishes and how long a new upload waits.
// A tree that puts new uploads first makes the upload wait less than oldest-first does.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Host } from '../../src-main/host/host';
import { loadCorpus } from '../../src-main/bench/load-corpus';
import { generateCorpus } from '../../src-shared/corpus/generate';
import { previewOutcome, previewScenario, joinSegments, type LiveState } from '../../src-main/sim/preview';
import { defaultBindings, DEFAULT_LANES } from '../../src-main/arbiter/lanes';
import { defaultSettings } from '../../src-shared/settings/settings-schema';
import { defaultPolicyTree } from '../../src-shared/policy/default-tree';
import { walkTree } from '../../src-shared/policy/tree';

let dir: string;
let host: Host;
const NOW = 1_000_000;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-preview-'));
  host = new Host({ databaseFile: path.join(dir, 'backlot.sqlite'), durable: false });
  loadCorpus(host, generateCorpus({ seed: 5, channels: 3, items: 120, durationS: { min: 300, max: 1800 }, have: { download: 1, transcribe: 0.3 } }), NOW);
});
afterAll(() => {
  host.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function live(overrides: Partial<LiveState> = {}): LiveState {
  return {
    now: NOW, lanes: Object.values(DEFAULT_LANES).map((l) => ({ ...l, slots: l.queueKey === 'gpu' ? 1 : l.slots })), paused: [],
    bindings: defaultBindings(), settings: defaultSettings(), freeBytes: null, spentUsd: 0, ...overrides,
  };
}

const FIFO = { id: 'root', children: [{ id: 'sync', match: { operation: 'sync' } }, { id: 'everything', order: 'oldest' }] };

describe('previewScenario', () => {
  it('carries the library, its done work and the live lanes; samples a large library with its scale', () => {
    const built = previewScenario(host.db, live());
    expect(built.library).toEqual({ channels: 3, items: 120, simulatedItems: 120, scale: 1 });
    const transcribed = host.db.prepare("SELECT COUNT(*) FROM work WHERE operation = 'transcribe' AND state = 'done'").pluck().get() as number;
    expect(built.toDo.transcribe).toBe(120 - transcribed);
    expect(built.toDo.download).toBe(0);
    const sampled = previewScenario(host.db, live(), 40);
    expect(sampled.library).toEqual({ channels: 3, items: 120, simulatedItems: 40, scale: 3 });
  });

  it('starts paused lanes paused and a failed preflight failed: that work never finishes', () => {
    const paused = previewOutcome(previewScenario(host.db, live({ paused: ['gpu'] })), defaultPolicyTree());
    expect(paused.operations.find((o) => o.operation === 'transcribe')).toMatchObject({ finishesAtS: null, estimatedFinishS: null });
    const broken = previewOutcome(previewScenario(host.db, live({ bindings: defaultBindings().map((b) => (b.operation === 'digest' ? { ...b, preflight: { ok: false, code: 'MODEL_MISSING', message: 'no model' } } : b)) })), defaultPolicyTree());
    expect(broken.operations.find((o) => o.operation === 'digest')?.finishesAtS).toBeNull();
    expect(broken.operations.find((o) => o.operation === 'transcribe')?.finishesAtS).toBeGreaterThan(0);
  });
});

describe('previewOutcome', () => {
  it('finishes the backlog under both trees; new uploads first wait less than oldest first', () => {
    const built = previewScenario(host.db, live());
    const newFirst = previewOutcome(built, defaultPolicyTree());
    const oldestFirst = previewOutcome(built, FIFO);
    for (const o of [newFirst, oldestFirst]) {
      for (const op of o.operations) expect(op.finishesAtS, op.operation).not.toBeNull();
      expect(o.newUpload.doneAfterS).not.toBeNull();
    }
    expect(newFirst.newUpload.doneAfterS!).toBeLessThan(oldestFirst.newUpload.doneAfterS!);
    const transcribeWait = (o: typeof newFirst) => o.newUpload.waits.find((w) => w.operation === 'transcribe')!.startsAfterS!;
    expect(transcribeWait(newFirst)).toBeLessThan(transcribeWait(oldestFirst));
    // The timeline covers the GPU lane's work, each stretch inside the simulated span.
    const gpu = newFirst.timeline.filter((s) => s.lane === 'gpu');
    expect(gpu.length).toBeGreaterThan(0);
    for (const s of newFirst.timeline) expect(s.end).toBeLessThanOrEqual(newFirst.endS);
  });
});

describe('one seeded library for both trees (issue 19 part 3)', () => {
  it('gives the same answer from a copy of the seeded library as from seeding it again, and counts its picks', () => {
    const built = previewScenario(host.db, live());
    const seeded = path.join(dir, 'seeded.sqlite');
    let told = 0;
    const progress: number[] = [];
    const keeper = previewOutcome(built, defaultPolicyTree(), { keepSeeded: seeded, onSeeded: () => told++, onProgress: (p) => progress.push(p) });
    expect(told).toBe(1);
    expect(fs.existsSync(seeded)).toBe(true);
    expect(keeper).toEqual(previewOutcome(built, defaultPolicyTree()));
    expect(previewOutcome(built, FIFO, { seededFrom: seeded })).toEqual(previewOutcome(built, FIFO));
    // Told every 4,096 picks, in order.
    expect(progress).toEqual(Array.from({ length: Math.floor(keeper.picks / 4096) }, (_, i) => (i + 1) * 4096));
  });
});

describe('the preview’s diff and holds (issue 20 item 5)', () => {
  it('names the holds of work left over, with explain’s codes and how many units each held', () => {
    const paused = previewOutcome(previewScenario(host.db, live({ paused: ['gpu'] })), defaultPolicyTree());
    const transcribe = paused.operations.find((o) => o.operation === 'transcribe')!;
    expect(transcribe.left).toBeGreaterThan(0);
    expect(transcribe.held.map((h) => h.code)).toContain('LANE_PAUSED');
    expect(transcribe.held.reduce((n, h) => n + h.count, 0)).toBe(Math.min(transcribe.left, 200));
    // Work that finished has no holds to name.
    const download = paused.operations.find((o) => o.operation === 'download')!;
    expect(download).toMatchObject({ left: 0, held: [] });
  });

  it('gives every node and channel its first start and finish, which differ between trees', () => {
    const built = previewScenario(host.db, live());
    const newFirst = previewOutcome(built, defaultPolicyTree());
    const oldestFirst = previewOutcome(built, FIFO);
    expect(newFirst.nodes.map((n) => n.node)).toEqual([...walkTree(defaultPolicyTree())].map((e) => e.node.id));
    expect(oldestFirst.nodes.map((n) => n.node)).toEqual(['root', 'sync', 'everything']);
    const root = newFirst.nodes[0];
    expect(root.units).toBeGreaterThan(0);
    expect(root.finishS).toBeLessThanOrEqual(newFirst.endS);
    // A group spans its leaves: the root starts no later and finishes no earlier than any of them.
    for (const n of newFirst.nodes) {
      if (n.firstStartS !== null) expect(root.firstStartS!).toBeLessThanOrEqual(n.firstStartS);
      if (n.finishS !== null) expect(root.finishS!).toBeGreaterThanOrEqual(n.finishS);
    }
    expect(newFirst.channels.map((c) => c.channel).sort()).toEqual(host.db.prepare('SELECT id FROM channels ORDER BY id').pluck().all());
    expect(newFirst.channels.reduce((n, c) => n + c.units, 0)).toBe(root.units);
    // The two trees order the work differently: some channel finishes at another time.
    const finishes = (o: typeof newFirst) => o.channels.map((c) => c.finishS);
    expect(finishes(newFirst)).not.toEqual(finishes(oldestFirst));
  });
});

describe('joinSegments', () => {
  it('joins neighbouring stretches of one operation on a slot until few enough are left to draw', () => {
    const segments = Array.from({ length: 5000 }, (_, i) => ({ lane: 'cpu', slot: 0, operation: 'digest' as const, start: i, end: i + 0.9, units: 1 }));
    const joined = joinSegments(segments, 5000);
    expect(joined.length).toBeLessThanOrEqual(1500);
    expect(joined.reduce((n, s) => n + s.units, 0)).toBe(5000);
    expect(joined[0].start).toBe(0);
    expect(joined[joined.length - 1].end).toBe(4999.9);
  });
});
