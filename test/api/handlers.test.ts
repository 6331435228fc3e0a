// The host's handlers against a real SQLite library: what they answer is on-contract, and the
// every refusal a caller can reach comes back as a code and one sentence.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHandlers } from '../../src-main/api/handlers';
import { dispatch } from '../../src-main/api/dispatch';
import { Host } from '../../src-main/host/host';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { API } from '../../src-shared/api/contract';
import { SettingsStore } from '../../src-main/settings/settings-store';
import { createFixtureLibrary, FIXTURE_CHANNEL, type FixtureLibrary } from '../shells/library-fixture';

let lib: FixtureLibrary;
let host: Host;

beforeEach(() => {
  lib = createFixtureLibrary(3);
  host = new Host({ databaseFile: lib.databaseFile });
});
afterEach(() => {
  host.close();
  lib.remove();
});

describe('createHandlers', () => {
  it('library.list gives each channel with its item count, on-contract', async () => {
    const result = await createHandlers(host)['library.list']({});
    expect(API['library.list'].response.parse(result)).toEqual({
      channels: [{ id: FIXTURE_CHANNEL.id, kind: 'folder', platform: 'folder', title: FIXTURE_CHANNEL.title, source: FIXTURE_CHANNEL.source, items: 3 }],
    });
  });

  it('snapshot.get gives the six separate counts per operation, on-contract', async () => {
    const result = await createHandlers(host)['snapshot.get']({});
    const parsed = API['snapshot.get'].response.parse(result);
    expect(parsed.channels).toHaveLength(1);
    const [ch] = parsed.channels;
    expect(ch).toMatchObject({ id: FIXTURE_CHANNEL.id, title: FIXTURE_CHANNEL.title, items: 3 });
    expect(ch.operations.download).toEqual({ done: 3, missing: 0, stale: 0, missingInput: 0, deferred: 0, blocked: 0 });
    expect(ch.operations.transcribe).toMatchObject({ missing: 3, done: 0 });
    expect(ch.operations.digest).toMatchObject({ blocked: 3, missing: 0 });
    expect(ch.operations.transcribe.ids).toBeUndefined();
  });

  it('snapshot.get passes channel and ids through', async () => {
    const result = await createHandlers(host)['snapshot.get']({ channel: FIXTURE_CHANNEL.id, ids: true });
    expect(result.channels[0].operations.transcribe.ids).toHaveLength(3);
  });

  it('snapshot.get refuses an unknown channel with a code and a sentence', async () => {
    const outcome = await dispatch(createHandlers(host), 'snapshot.get', { channel: 'nope' });
    expect(outcome).toEqual({ ok: false, error: { code: 'CHANNEL_NOT_FOUND', message: 'There is no channel "nope" in the library.' } });
  });

  it('library.add adds a folder and refuses garbage with a code and a sentence', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-add-'));
    try {
      const added = await dispatch(createHandlers(host), 'library.add', { source: folder, title: 'Extra' });
      expect(added).toMatchObject({ ok: true, result: { channel: { kind: 'folder', title: 'Extra', source: folder, items: 0 } } });
      const again = await dispatch(createHandlers(host), 'library.add', { source: folder });
      expect(again).toMatchObject({ ok: false, error: { code: 'CHANNEL_EXISTS' } });
      const garbage = await dispatch(createHandlers(host), 'library.add', { source: 'not a url' });
      expect(garbage).toMatchObject({ ok: false, error: { code: 'SOURCE_UNRECOGNISED' } });
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('library.scan reports what a folder scan found, and refuses a folder that went away', async () => {
    const moved = await dispatch(createHandlers(host), 'library.scan', {});
    expect(moved).toMatchObject({ ok: false, error: { code: 'FOLDER_NOT_FOUND' } });
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-scan-'));
    try {
      execFileSync('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.3', path.join(folder, 'talk.wav')]);
      const added = await dispatch(createHandlers(host), 'library.add', { source: folder });
      const id = added.ok ? added.result.channel.id : '';
      fs.rmSync(path.join(folder, 'talk.wav'));
      const outcome = await dispatch(createHandlers(host), 'library.scan', { channel: id });
      expect(outcome.ok && API['library.scan'].response.parse(outcome.result).scanned).toEqual([{ channel: id, added: 0, changed: 0, removed: 1, unreadable: 0 }]);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('explain.get answers state and one reason; an unknown item is refused', async () => {
    const [ch] = (await createHandlers(host)['snapshot.get']({ channel: FIXTURE_CHANNEL.id, ids: true })).channels;
    const item = ch.operations.transcribe.ids![0];
    const blocked = await dispatch(createHandlers(host), 'explain.get', { item, operation: 'digest' });
    expect(blocked).toEqual({ ok: true, result: { item, operation: 'digest', state: 'blocked', reason: { code: 'BLOCKED_ON', params: { operation: 'attribute-words' } } } });
    const done = await dispatch(createHandlers(host), 'explain.get', { item, operation: 'download' });
    expect(done).toMatchObject({ ok: true, result: { state: 'done', reason: { code: 'DONE' } } });
    const unknown = await dispatch(createHandlers(host), 'explain.get', { item: 'nope', operation: 'transcribe' });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'WORK_NOT_FOUND' } });
  });

  it('lanes.list shows every lane; the production build says why its engines cannot start', async () => {
    // Every download engine turned off: that lane cannot start, and says so.
    new SettingsStore(host.db).set('engines.download', []);
    const outcome = await dispatch(createHandlers(host), 'lanes.list', {});
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const lanes = API['lanes.list'].response.parse(outcome.result).lanes;
    expect(lanes.map((l) => l.lane)).toEqual(['sync', 'download', 'gpu', 'cpu', 'remote']);
    // The cpu lane has the speaker engines, so nothing holds it.
    expect(lanes.find((l) => l.lane === 'download')).toMatchObject({ running: 0, paused: false, hold: { code: 'PREFLIGHT_FAILED', params: { code: 'NO_ENGINE_ENABLED' } } });
    expect(lanes.find((l) => l.lane === 'cpu')).toMatchObject({ slots: 2, running: 0, paused: false, hold: null });
  });

  it('lanes.pause and lanes.resume go through the one pause writer; an unknown lane is refused', async () => {
    const handlers = createHandlers(host);
    const paused = await dispatch(handlers, 'lanes.pause', { lane: 'gpu' });
    expect(paused.ok && paused.result.lanes.find((l) => l.lane === 'gpu')).toMatchObject({ paused: true, hold: { code: 'LANE_PAUSED', params: { lane: 'gpu' } } });
    const all = await dispatch(handlers, 'lanes.pause', { lane: '*' });
    expect(all.ok && all.result.lanes.every((l) => l.paused)).toBe(true);
    await dispatch(handlers, 'lanes.resume', { lane: '*' });
    const resumed = await dispatch(handlers, 'lanes.resume', { lane: 'gpu' });
    expect(resumed.ok && resumed.result.lanes.every((l) => !l.paused)).toBe(true);
    const unknown = await dispatch(handlers, 'lanes.pause', { lane: 'warp' });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'UNKNOWN_LANE' } });
  });

  it('runs.list lists run records newest first, on-contract', async () => {
    host.db.prepare(`INSERT INTO runs (operation, channel_id, lane, slot, trigger, actor, started_at, ended_at, outcome, items_done)
      VALUES ('transcribe', ?, 'gpu', 0, 'arbiter', 'arbiter', 10, 20, 'succeeded', 2)`).run(FIXTURE_CHANNEL.id);
    const result = await createHandlers(host)['runs.list']({});
    expect(API['runs.list'].response.parse(result).runs).toMatchObject([{ operation: 'transcribe', lane: 'gpu', outcome: 'succeeded', itemsDone: 2 }]);
  });

  it('runs.lastPerJob gives the last three runs of each (operation, lane); runs.logs filters a run\'s lines', async () => {
    const insert = host.db.prepare(`INSERT INTO runs (operation, channel_id, lane, slot, trigger, actor, started_at, ended_at, outcome)
      VALUES ('transcribe', ?, 'gpu', 0, 'arbiter', 'arbiter', ?, ?, 'succeeded')`);
    for (let i = 1; i <= 4; i++) insert.run(FIXTURE_CHANNEL.id, i * 10, i * 10 + 5);
    host.db.prepare("INSERT INTO run_logs (run_id, t, level, text) VALUES (4, 41, 'info', 'started'), (4, 44, 'warn', 'slow disk')").run();
    const handlers = createHandlers(host);
    const jobs = API['runs.lastPerJob'].response.parse(await handlers['runs.lastPerJob']({})).jobs;
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ operation: 'transcribe', lane: 'gpu' });
    expect(jobs[0].runs.map((r) => r.id)).toEqual([4, 3, 2]);
    const warn = await dispatch(handlers, 'runs.logs', { run: 4, level: 'warn' });
    expect(warn).toMatchObject({ ok: true, result: { lines: [{ runId: 4, level: 'warn', text: 'slow disk' }] } });
    const missing = await dispatch(handlers, 'runs.logs', { run: 99 });
    expect(missing).toMatchObject({ ok: false, error: { code: 'RUN_NOT_FOUND' } });
  });

  it('work.retry makes failed work reachable again and says how many', async () => {
    const [ch] = (await createHandlers(host)['snapshot.get']({ channel: FIXTURE_CHANNEL.id, ids: true })).channels;
    const item = ch.operations.transcribe.ids![0];
    host.db.prepare("UPDATE work SET attempts = 3, deferral_kind = 'failed', deferral_code = 'ENGINE_CRASHED' WHERE operation = 'transcribe' AND item_id = ?").run(item);
    host.work.recomputeItem(item, host.now());
    expect(host.work.row('transcribe', item)!.state).toBe('deferred');
    expect(await dispatch(createHandlers(host), 'work.retry', { item, operation: 'transcribe' })).toEqual({ ok: true, result: { retried: 1 } });
    expect(host.work.row('transcribe', item)!.state).toBe('missing');
    expect(await dispatch(createHandlers(host), 'work.retry', { item: 'nope', operation: 'transcribe' })).toMatchObject({ ok: false, error: { code: 'ITEM_NOT_FOUND' } });
  });

  it('settings.list and settings.set validate, and a restart key needs the UI to say so', async () => {
    const handlers = createHandlers(host);
    const list = API['settings.list'].response.parse(await handlers['settings.list']({})).settings;
    expect(list.find((s) => s.key === 'retry.maxAttempts')).toMatchObject({ value: 3, isDefault: true, applies: 'live' });
    expect(await dispatch(handlers, 'settings.set', { key: 'retry.maxAttempts', value: 5 })).toMatchObject({ ok: true, result: { value: 5, restartPending: false } });
    expect(await dispatch(handlers, 'settings.set', { key: 'retry.maxAttempts', value: 0 })).toMatchObject({ ok: false, error: { code: 'SETTING_OUT_OF_RANGE' } });
    expect(await dispatch(handlers, 'settings.set', { key: 'claims.leaseS', value: 90 })).toMatchObject({ ok: false, error: { code: 'RESTART_REQUIRED' } });
    expect(await dispatch(handlers, 'settings.set', { key: 'claims.leaseS', value: 90, restartAcknowledged: true })).toMatchObject({ ok: true, result: { restartPending: true } });
    expect(await dispatch(handlers, 'settings.set', { key: 'no.such', value: 1 })).toMatchObject({ ok: false, error: { code: 'UNKNOWN_SETTING' } });
  });

  it('tree.get gives the stored tree (the default for a new library); tree.set validates and versions', async () => {
    const handlers = createHandlers(host);
    const first = await handlers['tree.get']({});
    expect(first.version).toBe(1);
    expect((first.tree as { id: string }).id).toBe('root');
    const fifo = { id: 'root', children: [{ id: 'fifo', order: 'oldest' }] };
    expect(await dispatch(handlers, 'tree.set', { tree: fifo })).toEqual({ ok: true, result: { version: 2, tree: fifo } });
    const bad = await dispatch(handlers, 'tree.set', { tree: { id: 'root', mode: 'weighted-fair', children: [{ id: 'a', weight: 0 }] } });
    expect(bad).toEqual({ ok: false, error: { code: 'POLICY_INVALID', message: 'Policy node "a": weight must be a number > 0 (got 0).' } });
    expect(await handlers['tree.get']({})).toEqual({ version: 2, tree: fifo });
  });

  it('run now and do next are refused clearly by a host that is not dispatching', async () => {
    const handlers = createHandlers(host);
    const sentence = 'This Backlot is not dispatching work (opened read-only); start the app or "backlot serve" to run work.';
    expect(await dispatch(handlers, 'runs.runNow', { operation: 'transcribe', channel: FIXTURE_CHANNEL.id })).toEqual({ ok: false, error: { code: 'NOT_DISPATCHING', message: sentence } });
    expect(await dispatch(handlers, 'runs.doNext', { operation: 'transcribe', item: 'x' })).toEqual({ ok: false, error: { code: 'NOT_DISPATCHING', message: sentence } });
  });

  it('implements every method of the contract', () => {
    expect(Object.keys(createHandlers(host)).sort()).toEqual(Object.keys(API).sort());
  });
});
