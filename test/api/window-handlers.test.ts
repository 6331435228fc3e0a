// The window's API methods against a real library and a real dispatcher with the test engines:
// items.get (each operation's state, its explanation and the run that last worked on it),
// lanes.detail (running units with their engine's progress, preflights, the disk and spend), runs.get
// and the history's filters, the demo library (spoken here, or the bundled clips without the
// tools), and the preview's refusal of a tree the host would refuse. Every answer is on-contract.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp, type BacklotApp } from '../../src-main/app/open-app';
import { createHandlers } from '../../src-main/api/handlers';
import { dispatch } from '../../src-main/api/dispatch';
import { addDemoLibrary, DEMO_CLIPS } from '../../src-main/library/demo-library';
import { API } from '../../src-shared/api/contract';
import { createFixtureLibrary, type FixtureLibrary } from '../shells/library-fixture';
import { untilHost } from '../shells/host-events';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function open(lib: FixtureLibrary, options: { dispatch?: boolean; chunkMs?: number } = {}): Promise<BacklotApp> {
  const app = await openApp({ dataDir: lib.dataDir, dispatch: options.dispatch ?? false, engines: 'test', test: { chunkMs: options.chunkMs ?? 5, chunks: 4 } });
  cleanups.push(() => app.close());
  return app;
}

function fixture(items = 2): FixtureLibrary {
  const lib = createFixtureLibrary(items);
  cleanups.push(() => lib.remove());
  return lib;
}

describe('items.get', () => {
  it('gives each operation its state, the host’s reason and the run that last worked on it', async () => {
    const lib = fixture(1);
    const app = await open(lib, { dispatch: true });
    const h = createHandlers(app.host, app.dispatcher);
    const item = app.host.library.itemsOfChannel(app.host.library.channels()[0].id)[0].id;
    // The fixture's media path is not a file, so download stays done and the rest runs on the test engines.
    await untilHost(app, async () => (await h['items.get']({ item })).operations.every((o) => o.state === 'done'));
    const answer = API['items.get'].response.parse(await h['items.get']({ item }));
    expect(answer.item).toMatchObject({ id: item, title: 'Clip 1', media: 'local', fileName: 'clip 1.mp4' });
    expect(answer.operations.map((o) => o.operation)).toEqual(['download', 'transcribe', 'diarize', 'attribute-voices', 'attribute-words', 'digest']);
    for (const o of answer.operations) expect(o.reason.code).toBe('DONE');
    const transcribe = answer.operations.find((o) => o.operation === 'transcribe')!;
    expect(transcribe.engine).toBe('test');
    expect(transcribe.lastRun).toMatchObject({ operation: 'transcribe', outcome: expect.stringMatching(/running|succeeded/) });
    const run = await h['runs.get']({ run: transcribe.lastRun!.id });
    expect(run.run.id).toBe(transcribe.lastRun!.id);
    // The folder's own download never ran: no run to show.
    expect(answer.operations[0].lastRun).toBeNull();
    expect((await dispatch(h, 'items.get', { item: 'nope' })).ok).toBe(false);
    expect(await dispatch(h, 'runs.get', { run: 999 })).toEqual({ ok: false, error: { code: 'RUN_NOT_FOUND', message: expect.stringMatching(/There is no run 999/) } });
  });
});

describe('lanes.detail', () => {
  it('shows a running unit by title with its engine’s progress, beside preflights, the disk and spend', async () => {
    const lib = fixture(2);
    const app = await open(lib, { dispatch: true, chunkMs: 400 });
    // The disk gate reads this machine's real free space: thresholds at zero keep it open on any
    // machine (its defaults drain below 50 GB free, which a CI machine may have), as the download tests do.
    app.dispatcher.settings.set('diskGate.shutBelowBytes', 0);
    app.dispatcher.settings.set('diskGate.drainingBelowBytes', 0);
    const h = createHandlers(app.host, app.dispatcher);
    let seen: Awaited<ReturnType<typeof h['lanes.detail']>> | null = null;
    await untilHost(app, async () => {
      const d = await h['lanes.detail']({});
      if (d.lanes.some((l) => l.units.some((u) => (u.progress?.ratio ?? 0) > 0))) { seen = d; return true; }
      return false;
    });
    const detail = API['lanes.detail'].response.parse(seen);
    const cpu = detail.lanes.find((l) => l.lane === 'cpu')!;
    const unit = detail.lanes.flatMap((l) => l.units).find((u) => (u.progress?.ratio ?? 0) > 0)!;
    expect(unit.title).toMatch(/^Clip \d$/);
    // Keyed at the engine (docs/i18n.md "Progress messages"): the English text, and the key and params the window says.
    expect(unit.progress!.message).toMatch(/^chunk \d of 4$/);
    expect(unit.progress!.key).toBe('chunkOf');
    expect(unit.progress!.params).toEqual({ chunk: expect.any(Number), of: 4 });
    expect(unit.progress!.ratio).toBeGreaterThan(0);
    expect(cpu.engines.every((e) => e.preflight.ok)).toBe(true);
    expect(detail.disk.mode).toBe('open');
    expect(detail.spend).toMatchObject({ capUsd: null, spentUsd: 0, window: 'month' });
  });
});

describe('runs.list filters', () => {
  it('by outcome, trigger and before (the next page)', async () => {
    const lib = fixture(2);
    const app = await open(lib, { dispatch: true });
    const h = createHandlers(app.host, app.dispatcher);
    await untilHost(app, () => app.dispatcher.isSettled() && app.host.work.row('digest', `${app.host.library.channels()[0].id}.item2`)?.state === 'done');
    const all = (await h['runs.list']({ limit: 100 })).runs;
    expect(all.length).toBeGreaterThan(2);
    expect((await h['runs.list']({ outcome: 'failed' })).runs).toEqual([]);
    expect((await h['runs.list']({ trigger: 'arbiter' })).runs.length).toBe(all.filter((r) => r.trigger === 'arbiter').length);
    const older = (await h['runs.list']({ before: all[1].id, limit: 100 })).runs;
    expect(older.map((r) => r.id)).toEqual(all.slice(2).map((r) => r.id));
  });
});

describe('the demo library', () => {
  it('is spoken with espeak-ng and ffmpeg, added as a folder channel and listed by title', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-demo-'));
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const app = await openApp({ dataDir, engines: 'test' });
    cleanups.push(() => app.close());
    const h = createHandlers(app.host, app.dispatcher);
    const answer = API['library.demo'].response.parse(await h['library.demo']({}));
    expect(answer).toMatchObject({ clips: DEMO_CLIPS.length, synthesised: true, channel: { title: 'Demo library', kind: 'folder', items: DEMO_CLIPS.length } });
    const titles = (await h['items.list']({ offset: 0, limit: 10, sort: 'title' })).items.map((i) => i.title);
    expect(titles).toEqual(['Cooking notes - bread', 'The weather report', 'Welcome to Backlot']);
    // Real audio: ffprobe found each clip's length.
    for (const i of (await h['items.list']({ offset: 0, limit: 10 })).items) expect(i.durationS).toBeGreaterThan(2);
    expect((await dispatch(h, 'library.demo', {})).ok).toBe(false);
  });

  it('copies the bundled clips when espeak-ng or ffmpeg is missing', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-demo-'));
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const app = await openApp({ dataDir, engines: 'test' });
    cleanups.push(() => app.close());
    const bundledDir = path.resolve(__dirname, '../../resources/demo');
    const r = await addDemoLibrary(app.host, { dataDir, bundledDir, tools: { espeak: null, ffmpeg: '/usr/bin/ffmpeg' } });
    expect(r.synthesised).toBe(false);
    for (const clip of DEMO_CLIPS) {
      expect(fs.readFileSync(path.join(dataDir, 'demo-library', clip.file)).equals(fs.readFileSync(path.join(bundledDir, clip.file)))).toBe(true);
    }
  });
});

describe('preview.run', () => {
  it('refuses a tree the host would refuse, naming the node, and compares a good one with the stored tree', async () => {
    const lib = fixture(3);
    const app = await open(lib);
    const h = createHandlers(app.host, app.dispatcher);
    const bad = await dispatch(h, 'preview.run', { tree: { id: 'root', children: [{ id: 'a', weight: 0 }] } });
    expect(bad).toEqual({ ok: false, error: { code: 'POLICY_INVALID', message: 'Policy node "a": weight must be a number > 0 (got 0).' } });
    const fifo = { id: 'root', children: [{ id: 'sync', match: { operation: 'sync' } }, { id: 'all', order: 'oldest' }] };
    const answer = await dispatch(h, 'preview.run', { tree: fifo });
    expect(answer.ok).toBe(true);
    const result = API['preview.run'].response.parse(answer.ok ? answer.result : null);
    expect(result.library).toEqual({ channels: 1, items: 3, simulatedItems: 3, scale: 1 });
    for (const outcome of [result.current, result.edited]) {
      expect(outcome.operations.find((o) => o.operation === 'transcribe')).toMatchObject({ backlog: 3, left: 0 });
      expect(outcome.newUpload.doneAfterS).toBeGreaterThan(0);
      expect(outcome.timeline.length).toBeGreaterThan(0);
    }
    // Nothing was stored: the preview never touches the tree.
    expect((await h['tree.get']({})).version).toBe(1);
  });
});

describe('tree.matches', () => {
  it('counts what each leaf selects now: items, channels for sync, none for an id that is no channel', async () => {
    const lib = fixture(3);
    const app = await open(lib);
    const h = createHandlers(app.host, app.dispatcher);
    const channel = (await h['library.list']({})).channels[0];
    const tree = {
      id: 'root', children: [
        { id: 'sync', match: { operation: 'sync' } },
        { id: 'by-id', match: { channel: [channel.id] } },
        { id: 'by-title', match: { channel: [channel.title] } },
        { id: 'by-platform', match: { platform: [channel.platform], operation: 'transcribe' } },
        { id: 'recent', match: { publishedWithinS: 1 } },
      ],
    };
    const answer = await dispatch(h, 'tree.matches', { tree });
    expect(answer.ok).toBe(true);
    const { leaves } = API['tree.matches'].response.parse(answer.ok ? answer.result : null);
    expect(leaves).toEqual([
      { node: 'sync', unit: 'channels', count: 1 },
      { node: 'by-id', unit: 'items', count: 3 },
      // A channel's title is not its id: the rule would match nothing, and the editor says so.
      { node: 'by-title', unit: 'items', count: 0 },
      { node: 'by-platform', unit: 'items', count: 3 },
      { node: 'recent', unit: 'items', count: 0 },
    ]);
    const bad = await dispatch(h, 'tree.matches', { tree: { id: 'root', children: [{ id: 'a', weight: 0 }] } });
    expect(bad).toMatchObject({ ok: false, error: { code: 'POLICY_INVALID' } });
  });
});
