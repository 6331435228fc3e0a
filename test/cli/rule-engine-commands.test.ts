// The rule engine's commands as a user runs them (real processes on a real library): explain,
// lanes, tree, bench and serve, with each refusal one sentence on stderr and a non-zero exit.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = path.resolve('bin/backlot.mjs');
let dir = '';
let data = '';

function backlot(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function refused(r: { code: number | null; out: string; err: string }, code: number, text: string) {
  expect(r.code).toBe(code);
  expect(r.err.trim().split('\n')).toHaveLength(1);
  expect(r.err).toContain(text);
  expect(r.err).not.toMatch(/\n\s+at /);
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-cli-'));
  data = path.join(dir, 'data');
  const media = path.join(dir, 'media');
  fs.mkdirSync(media);
  execFileSync('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.5', path.join(media, 'talk.wav')]);
  expect(backlot('library', 'add', media, '--data', data).code).toBe(0);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('backlot explain', () => {
  it('answers state and reason for an item, as text and JSON', () => {
    const snap = JSON.parse(backlot('snapshot', '--data', data, '--json', '--ids').out) as { channels: { operations: Record<string, { ids: string[] }> }[] };
    const item = snap.channels[0].operations.transcribe.ids[0];
    const json = JSON.parse(backlot('explain', item, 'digest', '--data', data, '--json').out);
    expect(json).toEqual({ item, operation: 'digest', state: 'blocked', reason: { code: 'BLOCKED_ON', params: { operation: 'attribute-words' } } });
    // A folder item's download is its own file (issue 20 item 10): said in the reason's params.
    expect(backlot('explain', item, 'download', '--data', data).out).toBe(`${item} download: done (DONE {"source":"folder"})\n`);
  });

  it('refuses an unknown operation, an unknown item and a missing library', () => {
    refused(backlot('explain', 'x', 'transmogrify', '--data', data), 2, '"transmogrify" is not an operation');
    refused(backlot('explain', 'nope', 'transcribe', '--data', data), 1, 'WORK_NOT_FOUND: There is no item "nope" in the library.');
    refused(backlot('explain', 'x', 'transcribe', '--data', path.join(dir, 'none')), 1, 'NO_LIBRARY');
  });
});

describe('backlot lanes', () => {
  it('pauses and resumes through the one writer, and refuses an unknown lane', () => {
    const paused = JSON.parse(backlot('lanes', 'pause', 'cpu', '--data', data, '--json').out) as { lanes: { lane: string; paused: boolean }[] };
    expect(paused.lanes.find((l) => l.lane === 'cpu')?.paused).toBe(true);
    const listed = JSON.parse(backlot('lanes', '--data', data, '--json').out) as { lanes: { lane: string; paused: boolean }[] };
    expect(listed.lanes.find((l) => l.lane === 'cpu')?.paused).toBe(true);
    const resumed = JSON.parse(backlot('lanes', 'resume', 'cpu', '--data', data, '--json').out) as { lanes: { paused: boolean }[] };
    expect(resumed.lanes.every((l) => !l.paused)).toBe(true);
    refused(backlot('lanes', 'pause', 'warp', '--data', data), 1, 'UNKNOWN_LANE: There is no lane "warp"');
    refused(backlot('lanes', 'pause', '--data', data), 2, 'Usage: backlot lanes');
  });
});

describe('backlot tree', () => {
  it('shows the default tree, replaces it, and refuses a bad tree without touching the stored one', () => {
    expect(JSON.parse(backlot('tree', '--data', data).out).id).toBe('root');
    const good = path.join(dir, 'good.json');
    fs.writeFileSync(good, JSON.stringify({ id: 'mine', children: [{ id: 'all', order: 'oldest' }] }));
    expect(JSON.parse(backlot('tree', 'set', good, '--data', data).out).id).toBe('mine');
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify({ id: 'r', mode: 'weighted-fair', children: [{ id: 'a', weight: 0 }] }));
    refused(backlot('tree', 'set', bad, '--data', data), 1, 'POLICY_INVALID: Policy node "a": weight must be a number > 0 (got 0).');
    const garbage = path.join(dir, 'garbage.json');
    fs.writeFileSync(garbage, '{not json');
    refused(backlot('tree', 'set', garbage, '--data', data), 1, 'is not valid JSON');
    refused(backlot('tree', 'set', path.join(dir, 'absent.json'), '--data', data), 1, 'IO_ERROR: Cannot read the policy tree file');
    expect(JSON.parse(backlot('tree', '--data', data).out).id).toBe('mine');
  });
});

describe('backlot bench and serve refusals', () => {
  it('refuses an unknown benchmark, a bad tree name and a bad engine profile', () => {
    refused(backlot('bench', 'warp'), 2, 'bench knows snapshot, sim, uploads, pipeline');
    refused(backlot('bench', 'uploads', '--tree', 'lifo'), 2, '--tree must be default or fifo, got "lifo".');
    refused(backlot('serve', '--data', data, '--engines', 'magic'), 2, '--engines must be one of production, test, got "magic".');
    refused(backlot('serve', '--data', data, '--engines', 'test', '--test-chunk-ms', 'soon'), 2, '--test-chunk-ms must be a number of milliseconds');
  });

  it('runs the pipeline benchmark and prints its figures', () => {
    const r = JSON.parse(backlot('bench', 'pipeline', '--items', '40', '--json').out) as { items: number; ratio: number };
    expect(r.items).toBe(40);
    expect(r.ratio).toBeGreaterThanOrEqual(1);
    expect(r.ratio).toBeLessThan(1.05);
  });

  it('runs the pick benchmark with the statement profile: every pick claims once, and the costs add up', () => {
    const r = JSON.parse(backlot('bench', 'sim', '--items', '300', '--channels', '4', '--statements', '--json').out) as {
      picks: number; picksPerSecond: number; statements: { usPerPick: number; top: { sql: string; perPick: number; usEach: number; usPerPick: number }[] };
    };
    expect(r.picks).toBeGreaterThan(300);
    expect(r.picksPerSecond).toBeGreaterThan(0);
    // Each pick checks its claim's key once; the claim's row is written only if its unit is still
    // running when the commit group ends (docs/architecture.md "Transactions").
    const claim = r.statements.top.find((s) => s.sql.startsWith('SELECT 1 FROM claims WHERE key'));
    expect(claim?.perPick).toBe(1);
    expect(claim!.usEach).toBeGreaterThan(0);
    const written = r.statements.top.find((s) => s.sql.startsWith('INSERT INTO claims'));
    expect(written?.perPick ?? 0).toBeLessThan(1);
    const listed = r.statements.top.reduce((sum, s) => sum + s.usPerPick, 0);
    expect(listed).toBeLessThanOrEqual(r.statements.usPerPick + 0.5);
    expect(r.statements.top.map((s) => s.usPerPick)).toEqual([...r.statements.top.map((s) => s.usPerPick)].sort((a, b) => b - a));
  });
});
