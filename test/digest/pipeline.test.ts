// The digest stage of a real library on the real dispatcher (openApp with dispatch), its engines as
// child processes: extractive digests and the channel roll-up, the CLI's digest command, and the
// remote engine against a loopback chat-completions server: held at the spend cap before a unit
// that would cross it (nothing beyond the cap sent, the hold and the spend surviving a restart),
// a refused key failing the lane's preflight once, a malformed answer kept as a diagnostic.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openApp, type BacklotApp } from '../../src-main/app/open-app';
import { createHandlers } from '../../src-main/api/handlers';
import { laneStatuses } from '../../src-main/dispatch/lane-status';
import { explain } from '../../src-main/explain/explain';
import { channelDigestRecord } from '../../src-shared/digest/channel-record';
import { SECRETS_DIR } from '../../src-main/settings/secret-store';
import { startOpenAiServer, type OpenAiServer } from '../../src-main/bench/openai-loopback';
import { addTranscribedItem, CHANNEL, createDigestLibrary, type DigestLibrary } from './library';
import { until } from '../reliability/fixtures/host';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'backlot.mjs');
const KEY = 'sk-loopback-secret-5e1f2a9b7c';
const libs: DigestLibrary[] = [];
const apps: BacklotApp[] = [];
let server: OpenAiServer;

beforeAll(async () => { server = await startOpenAiServer(); });
afterAll(async () => { await server.close(); });
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
  for (const l of libs.splice(0)) l.remove();
});

function cli(args: string[], stdin?: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', input: stdin, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function open(lib: DigestLibrary): Promise<BacklotApp> {
  const app = await openApp({ dataDir: lib.dataDir, dispatch: true });
  apps.push(app);
  return app;
}

async function close(app: BacklotApp): Promise<void> {
  apps.splice(apps.indexOf(app), 1);
  await app.close();
}

const state = (app: BacklotApp, op: 'digest' | 'channel-digest', id: string) => app.host.work.row(op, id)?.state;

describe('extractive digests and the channel roll-up', () => {
  it('digests every item, rolls the channel up, re-rolls when a new digest lands, and the CLI reads both', async () => {
    const lib = createDigestLibrary({ items: 3, seconds: 300, withoutTranscript: ['waiting'] });
    libs.push(lib);
    let app = await open(lib);
    await until('every digest and the roll-up', () => (lib.items.every((i) => state(app, 'digest', i) === 'done') && state(app, 'channel-digest', CHANNEL) === 'done' ? true : undefined), 60_000);
    const first = channelDigestRecord.parse(JSON.parse(fs.readFileSync(app.host.work.row('channel-digest', CHANNEL)!.output_path!, 'utf8')));
    expect(first.items.map((i) => i.item).sort()).toEqual(['t1', 't2', 't3']);
    expect(first.summary.length).toBeGreaterThan(0);

    // A new item's digest lands: the roll-up goes stale and is made again with it.
    const rollupRuns = () => (app.host.db.prepare("SELECT COUNT(*) AS n FROM runs WHERE operation = 'channel-digest' AND outcome = 'succeeded'").get() as { n: number }).n;
    const before = rollupRuns();
    addTranscribedItem(app.host, lib.dataDir, 't9', 120, app.host.now() - 5, 9);
    app.dispatcher.wake();
    await until('the new roll-up', () => (rollupRuns() > before && state(app, 'channel-digest', CHANNEL) === 'done' ? true : undefined), 60_000);
    const second = channelDigestRecord.parse(JSON.parse(fs.readFileSync(app.host.work.row('channel-digest', CHANNEL)!.output_path!, 'utf8')));
    expect(second.items.map((i) => i.item)).toContain('t9');
    await close(app);

    const item = cli(['digest', 't1', '--data', lib.dataDir, '--json']);
    expect(item.code).toBe(0);
    const answer = JSON.parse(item.stdout) as Record<string, unknown>;
    expect(Object.keys(answer)).toEqual(['item', 'engine', 'summary', 'moments', 'usd']);
    expect(answer).toMatchObject({ item: 't1', engine: 'extractive', usd: 0 });
    expect(Object.keys((answer.moments as object[])[0])).toEqual(['start', 'speaker', 'text']);

    const refused = cli(['digest', 'waiting', '--data', lib.dataDir, '--json']);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe('backlot: DIGEST_NOT_READY: Item "waiting" has no digest yet: its digest is blocked (BLOCKED_ON {"operation":"attribute-words"}).');

    const channel = cli(['digest', '--channel', CHANNEL, '--period', second.period.key, '--data', lib.dataDir, '--json']);
    expect(channel.code).toBe(0);
    expect(JSON.parse(channel.stdout)).toMatchObject({ channel: CHANNEL, period: { key: second.period.key } });
    expect(cli(['digest', '--channel', CHANNEL, '--period', '1999-W01', '--data', lib.dataDir]).stderr).toMatch(/^backlot: DIGEST_NOT_READY: Channel "talks" has no digest for 1999-W01; there are digests for /);
    expect(cli(['digest', '--channel', CHANNEL, '--period', 'last tuesday', '--data', lib.dataDir]).code).toBe(2);

    // Opened again: nothing is redone.
    app = await open(lib);
    expect(state(app, 'channel-digest', CHANNEL)).toBe('done');
  }, 120_000);
});

const remoteSettings = (extra: Record<string, unknown> = {}) => ({
  'engines.digest': ['openai-compatible'],
  'digest.remote.baseUrl': server.url,
  'digest.remote.model': 'loopback-model',
  'digest.remote.apiKey': KEY,
  'digest.remote.usdPerMillionInput': 100,
  'digest.remote.usdPerMillionOutput': 200,
  ...extra,
});

function ledgerUsd(app: BacklotApp): number {
  return (app.host.db.prepare('SELECT COALESCE(SUM(usd), 0) AS usd FROM spend_ledger').get() as { usd: number }).usd;
}

describe('remote digests within the spend cap', () => {
  it('holds the remote lane with SPEND_CAP before a unit that would cross the cap, sends nothing beyond it, and keeps both across a restart', async () => {
    server.reply = () => ({ kind: 'answer' });
    const lib = createDigestLibrary({ items: 8, seconds: 300, settings: remoteSettings({ 'spend.capUsd': 1 }) });
    libs.push(lib);
    const sentBefore = server.requests.length;
    let app = await open(lib);
    const capNotice = () => app.host.notices().find((n) => n.kind === 'spend-cap-reached');
    // The notice stays once given, but a unit that cost less than it reserved can let the lane go on
    // for one more: held means the lane's own hold says so with nothing running, not the notice alone.
    const remoteHold = () => laneStatuses(app.dispatcher.arbiter, app.host.now()).find((l) => l.lane === 'remote')?.hold?.code;
    await until('the cap to hold the lane', () => (capNotice() && app.dispatcher.running().length === 0 && remoteHold() === 'SPEND_CAP' ? true : undefined), 60_000);
    const done = lib.items.filter((i) => state(app, 'digest', i) === 'done');
    expect(done.length).toBeGreaterThan(0);
    expect(done.length).toBeLessThan(lib.items.length);
    // Everything not done is still simply missing: held, not failed.
    for (const i of lib.items.filter((x) => !done.includes(x))) expect(state(app, 'digest', i)).toBe('missing');

    // What the server billed is exactly what was recorded, and within the cap.
    const billed = server.requests.slice(sentBefore).reduce((s, r) => s + (r.promptTokens * 100 + r.completionTokens * 200) / 1e6, 0);
    const spent = ledgerUsd(app);
    expect(spent).toBeCloseTo(billed, 9);
    expect(spent).toBeLessThanOrEqual(1);

    const remote = laneStatuses(app.dispatcher.arbiter, app.host.now()).find((l) => l.lane === 'remote')!;
    expect(remote.hold?.code).toBe('SPEND_CAP');
    const held = lib.items.find((x) => !done.includes(x))!;
    expect(explain(app.host, app.dispatcher.arbiter, held, 'digest', app.host.now()).reason.code).toBe('SPEND_CAP');
    expect(capNotice()).toMatchObject({ code: 'SPEND_CAP', params: { lane: 'remote', capUsd: 1 }, target: { view: 'settings', key: 'spend.capUsd' } });

    const handlers = createHandlers(app.host, app.dispatcher);
    const report = await handlers['spend.get']({});
    expect(report).toMatchObject({ capUsd: 1, window: 'month' });
    expect(report.month.usd).toBeCloseTo(spent, 9);
    expect(report.day.requests).toBe(server.requests.length - sentBefore);
    expect(report.remainingUsd).toBeCloseTo(1 - spent, 9);

    // A restart: the spend is read back from the file, the lane holds again, and nothing is sent.
    const sentAtStop = server.requests.length;
    await close(app);
    app = await open(lib);
    await until('the restarted host to hold at the cap', () => (capNotice() ? true : undefined), 30_000);
    expect(server.requests.length).toBe(sentAtStop);
    expect(ledgerUsd(app)).toBeCloseTo(spent, 12);
    await close(app);
    const json = cli(['spend', '--data', lib.dataDir, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ capUsd: 1, windowUsd: expect.closeTo(spent, 9) });
  }, 120_000);

  it('fails the lane\'s preflight on a refused key (REMOTE_AUTH) instead of every item, and never shows the key', async () => {
    server.reply = (r) => (r.authorization === `Bearer ${KEY}` ? { kind: 'status', status: 401, body: JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}` } }) } : { kind: 'answer' });
    const lib = createDigestLibrary({ items: 3, seconds: 60, settings: remoteSettings({ 'lanes.remote.slots': 1 }) });
    libs.push(lib);
    const before = server.requests.length;
    const app = await open(lib);
    const remote = () => laneStatuses(app.dispatcher.arbiter, app.host.now()).find((l) => l.lane === 'remote')!;
    await until('the remote lane to fail its preflight', () => (remote().hold?.code === 'PREFLIGHT_FAILED' && app.dispatcher.running().length === 0 ? true : undefined), 60_000);
    expect(remote().hold?.params).toMatchObject({ code: 'REMOTE_AUTH' });
    expect(server.requests.length - before).toBe(1);
    for (const i of lib.items) expect(state(app, 'digest', i)).toBe('missing');

    // The key is nowhere but its owner-only file.
    const file = path.join(lib.dataDir, SECRETS_DIR, 'digest.remote.apiKey');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    const handlers = createHandlers(app.host, app.dispatcher);
    const everywhere = [
      JSON.stringify(await handlers['settings.list']({})),
      JSON.stringify(app.host.db.prepare('SELECT * FROM runs').all()),
      JSON.stringify(app.host.db.prepare('SELECT * FROM run_logs').all()),
      JSON.stringify(app.host.db.prepare('SELECT * FROM settings').all()),
      JSON.stringify(app.host.notices()),
      ...fs.readdirSync(lib.dataDir).filter((f) => f.startsWith('backlot.sqlite')).map((f) => fs.readFileSync(path.join(lib.dataDir, f), 'latin1')),
    ].join('\n');
    expect(everywhere).not.toContain(KEY);
    expect(everywhere).not.toContain(KEY.slice(0, 10));
    const get = cli(['settings', 'get', 'digest.remote.apiKey', '--data', lib.dataDir, '--json']);
    expect(JSON.parse(get.stdout)).toMatchObject({ value: '(set)', set: true, secret: true });
    expect(get.stdout).not.toContain(KEY);

    // A new key (read from stdin, so it is in no shell history) lets the lane go again.
    const newKey = 'sk-loopback-accepted-000111';
    expect(app.dispatcher.settings.set('digest.remote.apiKey', newKey).value).toBe('(set)');
    await until('the digests with the new key', () => (lib.items.every((i) => state(app, 'digest', i) === 'done') ? true : undefined), 60_000);
    expect(server.requests.at(-1)!.authorization).toBe(`Bearer ${newKey}`);
  }, 120_000);

  it('fails a unit whose answer is malformed with its reason, the raw text kept as the diagnostic and its cost counted', async () => {
    server.reply = () => ({ kind: 'answer', content: '{"summary": "Sorry, I cannot produce a digest today.", "moments": "none"}' });
    const lib = createDigestLibrary({ items: 1, seconds: 60, settings: remoteSettings({ 'retry.maxAttempts': 1 }) });
    libs.push(lib);
    const app = await open(lib);
    await until('the failure', () => (state(app, 'digest', 't1') === 'deferred' ? true : undefined), 60_000);
    const run = app.host.db.prepare("SELECT outcome, reason_code, diagnostic, spent_usd FROM runs WHERE operation = 'digest'").get() as { outcome: string; reason_code: string; diagnostic: string; spent_usd: number };
    expect(run).toMatchObject({ outcome: 'failed', reason_code: 'REMOTE_MALFORMED' });
    expect(run.diagnostic).toContain('Sorry, I cannot produce a digest today.');
    expect(run.spent_usd).toBeGreaterThan(0);
    expect(app.host.db.prepare('SELECT outcome, requests FROM remote_usage').all()).toEqual([{ outcome: 'failed', requests: 1 }]);
  }, 120_000);
});
