// The real CLI: a scenario that is not valid is refused before it runs with exit code 2 and ONE
// line on stderr naming the field; the same scenario gives byte-identical stdout except wallMs.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-sim-cli-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
function write(content: unknown): string {
  const file = path.join(dir, `s${++n}.json`);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

function sim(file: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(root, 'bin/backlot.mjs'), 'sim', file, ...args], { cwd: root, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

const ok = { id: 'ok', match: { operation: 'transcribe' } };
const badTrees: [string, unknown, string, string][] = [
  ['unknown operation', { id: 'root', children: [{ id: 'x', match: { operation: 'nope' } }] }, 'children[0].match.operation', 'x'],
  ['repeated id', { id: 'root', children: [{ id: 'dup' }, { id: 'dup' }] }, 'children[1]', 'dup'],
  ['weight 0 under weighted-fair', { id: 'root', mode: 'weighted-fair', children: [{ id: 'w', weight: 0 }, ok] }, 'children[0].weight', 'w'],
  ['maxWorkers 0', { id: 'root', children: [{ id: 'm', maxWorkers: 0 }, ok] }, 'children[0].maxWorkers', 'm'],
  ['empty group', { id: 'root', children: [{ id: 'g', children: [] }, ok] }, 'children[0].children', 'g'],
  ['unknown lane in a match', { id: 'root', children: [{ id: 'l', match: { lane: 'warp' } }] }, 'children[0].match.lane', 'l'],
];

function expectRefused(r: { code: number; stdout: string; stderr: string }, ...needles: string[]) {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.split('\n').filter((l, i, all) => !(l === '' && i === all.length - 1));
  expect(lines).toHaveLength(1);
  for (const s of needles) expect(lines[0]).toContain(s);
}

describe('backlot sim refuses a bad scenario: exit 2, one stderr line naming the field', () => {
  for (const [name, tree, field, node] of badTrees) {
    it.concurrent(`bad tree at top level: ${name}`, async () => {
      expectRefused(await sim(write({ tree })), `tree.${field}`, `"${node}"`);
    });
    it.concurrent(`bad tree inside a tree event: ${name}`, async () => {
      expectRefused(await sim(write({ events: [{ at: 0, type: 'pause', lane: 'gpu' }, { at: 5, type: 'tree', tree }] })), `events[1].tree.${field}`, `"${node}"`);
    });
  }

  it.concurrent('unknown lane for an engine', async () => {
    expectRefused(await sim(write({ engines: { transcribe: { lane: 'warp', secondsFixed: 1 } } })), 'engines.transcribe.lane', 'warp');
  });

  it.concurrent('unknown lane in a pause event', async () => {
    expectRefused(await sim(write({ events: [{ at: 1, type: 'pause', lane: 'warp' }] })), 'events[0].lane');
  });

  it.concurrent('negative at', async () => {
    expectRefused(await sim(write({ events: [{ at: 10, type: 'resume' }, { at: -1, type: 'pause', lane: 'gpu' }] })), 'events[1].at');
  });

  it.concurrent('unknown channel in an item event', async () => {
    expectRefused(await sim(write({
      channels: [{ id: 'c1', items: [] }],
      events: [{ at: 5, type: 'item', channel: 'c9', item: { id: 'v1', publishedAt: 5, durationS: 10 } }],
    })), 'events[0].channel', 'c9');
  });

  it.concurrent('a file that is not JSON', async () => {
    const file = write('{ "tree": ');
    expectRefused(await sim(file), 'JSON');
  });

  it.concurrent('a file that is not JSON, with a newline inside the bad text', async () => {
    const file = write('not json\n');
    expectRefused(await sim(file), 'JSON');
  });

  it.concurrent('a valid scenario exits 0 with one JSON object on stdout and nothing on stderr', async () => {
    const r = await sim(write({ engines: { transcribe: { lane: 'gpu', secondsFixed: 10 } }, channels: [{ id: 'c', items: [{ id: 'v1', publishedAt: 0, durationS: 0, have: ['download'] }] }], tree: { id: 'root', children: [ok] } }));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out.trace.filter((e: { event: string }) => e.event === 'start').map((e: { item: string }) => e.item)).toEqual(['v1']);
  });
});

describe('determinism', () => {
  it('the same scenario twice gives byte-identical stdout except metrics.wallMs', async () => {
    const file = write({
      lanes: { gpu: { slots: 2 }, llm: { slots: 1, contendsFor: ['gpu'] } },
      engines: { digest: [{ lane: 'cpu', secondsFixed: 5 }, { lane: 'llm', secondsFixed: 3 }] },
      generate: { seed: 7, channels: 4, items: 60, durationS: { min: 60, max: 1800 }, have: { download: 0.6, transcribe: 0.3 } },
      channels: [{ id: 'mine', platform: 'vimeo', syncIntervalS: 900, items: [{ id: 'm1', publishedAt: -10, durationS: 300 }] }],
      settings: { retry: { maxAttempts: 3, baseS: 30, maxS: 900, jitter: 0.5 } },
      disk: { freeBytes: 60e9, downloadBytesPerMediaSecond: 250000 },
      failures: [{ operation: 'transcribe', item: 'm1', times: 2, code: 'ENGINE_CRASHED' }],
      events: [
        { at: 100, type: 'item', channel: 'mine', item: { id: 'm2', publishedAt: 100, durationS: 600 } },
        { at: 400, type: 'restart' },
        { at: 600, type: 'pause', lane: 'cpu' },
        { at: 900, type: 'resume', lane: 'cpu' },
        { at: 1000, type: 'diskFree', bytes: 30e9 },
      ],
      until: 5000,
    });
    const [a, b] = await Promise.all([sim(file), sim(file)]);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    const strip = (s: string) => s.replace(/"wallMs":\d+(\.\d+)?/, '"wallMs":0');
    expect(a.stdout).toMatch(/"wallMs":\d/);
    expect(strip(a.stdout)).toBe(strip(b.stdout));
    const out = JSON.parse(a.stdout);
    expect(out.trace.filter((e: { event: string }) => e.event === 'start').length).toBeGreaterThan(50);
    expect(out.metrics.restarts).toBe(1);
    // --pretty is the same object
    const p = await sim(file, '--pretty');
    expect(strip(JSON.stringify(JSON.parse(p.stdout)))).toBe(strip(a.stdout.trimEnd()));
  });
});
