// One runtime (docs/desktop.md "One runtime"): the command, the engines and the preview worker run
// from the build, and the same built files find their resources and programs in a packaged
// layout (resources beside app.asar, programs unpacked beside it) without BACKLOT_RESOURCES.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appRoot, builtMainFile, packagedResources, resourcesDir } from '../../src-main/system/app-layout';
import { engineProgram } from '../../src-main/engines/program-file';
import { nodeProgram } from '../../src-main/engines/program-command';
import { runEngine } from '../../src-main/engines/runner';
import { transcriptRecord } from '../../src-shared/transcript/record';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-layout-'));

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const builtFiles = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true })
  .flatMap((e) => (e.isDirectory() ? builtFiles(path.join(dir, e.name)) : [path.join(dir, e.name)]));

describe('the build is what runs', () => {
  it('holds the command, the preview worker and a program for every engine, and the engines resolve to them', () => {
    const engines = fs.readdirSync(path.join(ROOT, 'src-main', 'engines'))
      .filter((id) => fs.existsSync(path.join(ROOT, 'src-main', 'engines', id, 'program.ts')));
    expect(engines.length).toBeGreaterThan(10);
    for (const id of engines) {
      expect(engineProgram(id)).toBe(path.join(ROOT, 'out', 'main', 'engines', id, 'program.js'));
      expect(fs.existsSync(engineProgram(id))).toBe(true);
    }
    expect(fs.existsSync(path.join(ROOT, 'out', 'main', 'cli.js'))).toBe(true);
    expect(fs.existsSync(builtMainFile(path.join('sim', 'preview-worker.js')))).toBe(true);
    expect(appRoot()).toBe(ROOT);
  });

  it('loads no TypeScript at run time: no built file names tsx, and a .ts program is refused', () => {
    const mentions = builtFiles(path.join(ROOT, 'out', 'main')).filter((f) => /\btsx\b/.test(fs.readFileSync(f, 'utf8')));
    expect(mentions).toEqual([]);
    expect(() => nodeProgram(path.join(ROOT, 'src-main', 'engines', 'rollup', 'program.ts'))).toThrow(/from the build/);
  });

  it('finds resources beside the checkout, or where BACKLOT_RESOURCES says', () => {
    expect(resourcesDir({})).toBe(path.join(ROOT, 'resources'));
    expect(resourcesDir({ BACKLOT_RESOURCES: work })).toBe(work);
    expect(packagedResources()).toBeNull();
  });
});

describe('a packaged layout, made from this build', () => {
  // electron-builder.config.mjs: the app in resources/app.asar, engines and their chunks unpacked
  // to resources/app.asar.unpacked, models copied to resources/models.
  const resources = path.join(work, 'Backlot', 'resources');
  const unpacked = path.join(resources, 'app.asar.unpacked');
  fs.mkdirSync(path.join(unpacked, 'out'), { recursive: true });
  fs.cpSync(path.join(ROOT, 'out', 'main'), path.join(unpacked, 'out', 'main'), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(unpacked, 'node_modules'), 'dir');
  fs.mkdirSync(path.join(resources, 'models'));
  const hostModule = path.join(resources, 'app.asar', 'out', 'main', 'chunks', 'host.js');

  it('resolves the resources folder beside the archive without BACKLOT_RESOURCES, from the archive and from the unpacked programs', () => {
    expect(resourcesDir({}, hostModule)).toBe(resources);
    expect(resourcesDir({}, path.join(unpacked, 'out', 'main', 'engines', 'rollup', 'program.js'))).toBe(resources);
    expect(resourcesDir({ BACKLOT_RESOURCES: work }, hostModule)).toBe(work);
    expect(fs.existsSync(path.join(resourcesDir({}, hostModule), 'models'))).toBe(true);
  });

  it('starts engine programs from the unpacked copy, never from inside the archive', () => {
    expect(builtMainFile(path.join('engines', 'word-turn-merge', 'program.js'), hostModule))
      .toBe(path.join(unpacked, 'out', 'main', 'engines', 'word-turn-merge', 'program.js'));
  });

  it('runs a built engine from the unpacked copy with the engines\' allow-listed environment', async () => {
    const program = builtMainFile(path.join('engines', 'word-turn-merge', 'program.js'), hostModule);
    const job = fs.mkdtempSync(path.join(work, 'job-'));
    const transcript = path.join(job, 'transcript-in.json');
    const turns = path.join(job, 'turns.json');
    fs.writeFileSync(transcript, JSON.stringify(transcriptRecord.parse({
      version: 1, engine: 'pocketsphinx', model: 'en-us', language: 'en', durationS: 1,
      segments: [{ start: 0, end: 1, text: 'hi', speaker: null, words: [{ w: 'hi', start: 0, end: 1, p: 0.9 }] }],
    })));
    fs.writeFileSync(turns, JSON.stringify({ version: 1, engine: 'vosk-xvector', model: 'm', durationS: 1, speechS: 1, turns: [{ start: 0, end: 1, cluster: 0, embedding: null }], clusters: [{ cluster: 0, seconds: 1, embedding: [1] }] }));
    const out = fs.mkdtempSync(path.join(work, 'out-'));
    const outcome = await runEngine({ ...nodeProgram(program), cwd: work }, { jobId: 'p1', operation: 'attribute-words', outputDir: out, input: { transcript, turns, speakers: { 0: 'spk_x' } } });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const labelled = transcriptRecord.parse(JSON.parse(fs.readFileSync(outcome.outputs[0].path, 'utf8')));
    expect(labelled.segments[0].speaker).toBe('spk_x');
  });
});
