// `backlot run` and `backlot items` (issue 8, the contract other programs drive Backlot through),
// `backlot engines` and `backlot redo`, as real child processes on a folder library of real media.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeTone, tempDir } from '../library/helpers';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'backlot.mjs');

function backlot(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, BACKLOT_DATA: '' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function folderLibrary(files: string[]): string {
  const data = tempDir('run-cli');
  const media = tempDir('run-cli-media');
  files.forEach((f, i) => makeTone(path.join(media, f), 1, 350 + 40 * i));
  expect(backlot('library', 'add', media, '--data', data).status).toBe(0);
  return data;
}

const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;

describe('backlot run', () => {
  it('runs the pipeline with the test engines until idle: one line per unit, a JSON summary last', () => {
    const data = folderLibrary(['first talk.wav', 'second talk.wav']);
    const r = backlot('run', '--data', data, '--until-idle', '--engines', 'test', '--test-chunk-ms', '1', '--json');
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const units = lines.slice(0, -1) as { unit: { operation: string; title: string; outcome: string } }[];
    // Five item operations for each of the two items, and the channel's roll-up of their digests.
    const itemUnits = units.filter((u) => u.unit.operation !== 'channel-digest');
    expect(itemUnits).toHaveLength(2 * 5);
    expect(new Set(itemUnits.map((u) => u.unit.title))).toEqual(new Set(['first talk', 'second talk']));
    expect(units.filter((u) => u.unit.operation === 'channel-digest').length).toBeGreaterThanOrEqual(1);
    expect(units.every((u) => u.unit.outcome === 'done')).toBe(true);
    expect(lines.at(-1)).toEqual({ units: units.length, failed: 0, requeued: 0, held: [], preflight: [] });

    const items = JSON.parse(backlot('items', '--data', data, '--json').stdout) as { items: { title: string; channel: string; mediaPath: string; durationS: number; publishedAt: number; states: Record<string, string> }[] };
    expect(items.items.map((i) => i.title).sort()).toEqual(['first talk', 'second talk']);
    for (const i of items.items) {
      expect(Object.keys(i).sort()).toEqual(['channel', 'durationS', 'id', 'mediaPath', 'publishedAt', 'states', 'title']);
      expect(i.states).toEqual({ download: 'done', transcribe: 'done', diarize: 'done', 'attribute-voices': 'done', 'attribute-words': 'done', digest: 'done' });
      expect(i.mediaPath.endsWith('.wav')).toBe(true);
    }
    const table = backlot('items', '--data', data);
    expect(table.status).toBe(0);
    expect(table.stdout).toContain('first talk');
    expect(table.stdout).toContain('transcribe:done');
  });

  it('ends held by the preflight of lanes whose engines cannot run, and says so in the summary', () => {
    const data = folderLibrary(['a.wav']);
    // Only whisper.cpp on the cpu lane may transcribe, and no whisper model is installed here.
    expect(backlot('settings', 'set', 'engines.transcribe', 'whisper.cpp-cpu', '--data', data).status).toBe(0);
    const r = backlot('run', '--data', data, '--until-idle', '--json');
    expect(r.status).toBe(0);
    const summary = lastJson(r.stdout) as { preflight: { lane: string; code: string }[] };
    expect(summary.preflight).toContainEqual({ lane: 'cpu', code: 'MODEL_MISSING' });
    const text = backlot('run', '--data', data, '--until-idle');
    expect(text.stdout).toMatch(/cannot start \([A-Z_]+\)/);
  });

  it('stops cleanly after --timeout and exits 1, with nothing left running', () => {
    const data = folderLibrary(['slow.wav']);
    const r = backlot('run', '--data', data, '--timeout', '1', '--engines', 'test', '--test-chunk-ms', '60000', '--json');
    expect(r.status).toBe(1);
    expect(lastJson(r.stdout)).toMatchObject({ units: 0, failed: 0 });
    const runs = JSON.parse(backlot('runs', '--data', data, '--json').stdout) as { runs: { outcome: string; reason: { code: string } | null }[] };
    expect(runs.runs.length).toBeGreaterThan(0);
    expect(runs.runs.every((x) => x.outcome !== 'running')).toBe(true);
    expect(runs.runs.some((x) => x.outcome === 'interrupted' && x.reason?.code === 'HOST_STOPPED')).toBe(true);
  });

  it('refuses bad flags with one sentence and exit 2', () => {
    const data = folderLibrary(['a.wav']);
    for (const args of [['--timeout', 'soon'], ['--engines', 'fast'], ['extra']]) {
      const r = backlot('run', '--data', data, ...args);
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^backlot: /);
    }
    expect(backlot('items', '--data', data, '--channel', 'nope').stderr).toContain('CHANNEL_NOT_FOUND');
  });
});

describe('backlot engines and redo', () => {
  it('lists the engines with their preflight, and redo makes one engine\'s outputs stale', () => {
    const data = folderLibrary(['a.wav', 'b.wav']);
    const list = JSON.parse(backlot('engines', '--data', data, '--engines', 'test', '--json').stdout) as { engines: { id: string; operation: string; enabled: boolean; preflight: { ok: boolean } }[] };
    expect(list.engines.filter((e) => e.operation === 'transcribe')).toEqual([expect.objectContaining({ id: 'test', enabled: true, preflight: { ok: true } })]);
    expect(backlot('run', '--data', data, '--until-idle', '--engines', 'test', '--test-chunk-ms', '1').status).toBe(0);
    const redo = backlot('redo', 'transcribe', '--engine', 'test', '--data', data, '--json');
    expect(JSON.parse(redo.stdout)).toEqual({ redone: 2 });
    const items = JSON.parse(backlot('items', '--data', data, '--json').stdout) as { items: { states: Record<string, string> }[] };
    for (const i of items.items) expect(i.states.transcribe).toBe('stale');
    // Only transcription went stale: other operations' outputs still count.
    for (const i of items.items) expect(i.states.diarize).toBe('done');
    const again = JSON.parse(backlot('run', '--data', data, '--until-idle', '--engines', 'test', '--test-chunk-ms', '1', '--json').stdout.trim().split('\n').at(-1)!) as { units: number };
    expect(again.units).toBeGreaterThanOrEqual(2);
    expect(backlot('redo', 'transcribe', '--engine', 'nope', '--data', data).stderr).toContain('UNKNOWN_ENGINE');
    expect(backlot('redo', 'transcribe', '--data', data).status).toBe(2);
  });
});
