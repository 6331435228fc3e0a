// Issue 23 item 7: a key set through the CLI while `backlot serve` runs reaches the host as a change
// through the API does: the remote lane's REMOTE_AUTH hold lifts and the next request carries the
// new key (docs/security.md "Settings from another process"). All traffic stays on loopback.
import { spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiServer, type OpenAiServer } from '../../src-main/bench/openai-loopback';
import { createDigestLibrary, type DigestLibrary } from './library';
import { until } from '../reliability/fixtures/host';
import { spawnServe } from '../shells/spawn-serve';
import { postOnce } from '../http-post';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'backlot.mjs');
const OLD_KEY = 'sk-loopback-refused-4b2e9d';
const NEW_KEY = 'sk-loopback-accepted-7c1a30';
const TOKEN = 'key-cli-token-123456';

let server: OpenAiServer;
let lib: DigestLibrary | undefined;
let child: ChildProcess | undefined;

beforeAll(async () => { server = await startOpenAiServer(); });
afterAll(async () => { await server.close(); });
afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = undefined;
  lib?.remove();
  lib = undefined;
});

async function serve(dataDir: string): Promise<string> {
  const served = await spawnServe(['--data', dataDir, '--port', '0', '--token', TOKEN], process.env, (proc) => { child = proc; });
  return served.url.origin;
}

interface Lane { lane: string; hold: { code: string; params?: Record<string, unknown> } | null }

async function remoteLane(base: string): Promise<Lane> {
  const res = await postOnce(`${base}/api/lanes.list`, { Authorization: `Bearer ${TOKEN}` }, '{}');
  const body = res.json<{ lanes: Lane[] }>();
  return body.lanes.find((l) => l.lane === 'remote')!;
}

describe('settings written by another process', () => {
  it('lifts the REMOTE_AUTH hold when the key is set through the CLI while the host serves', async () => {
    server.reply = (r) => (r.authorization === `Bearer ${NEW_KEY}` ? { kind: 'answer' } : { kind: 'status', status: 401, body: '{"error":{"message":"Incorrect API key"}}' });
    lib = createDigestLibrary({
      items: 2, seconds: 60,
      settings: {
        'engines.digest': ['openai-compatible'], 'digest.remote.baseUrl': server.url, 'digest.remote.model': 'loopback-model',
        'digest.remote.apiKey': OLD_KEY, 'lanes.remote.slots': 1,
      },
    });
    const base = await serve(lib.dataDir);
    const held = await until('the remote lane to fail its preflight', async () => {
      const lane = await remoteLane(base);
      return lane.hold?.code === 'PREFLIGHT_FAILED' ? lane : undefined;
    }, 60_000);
    expect(held.hold?.params).toMatchObject({ code: 'REMOTE_AUTH' });
    expect(server.requests.some((r) => r.authorization === `Bearer ${NEW_KEY}`)).toBe(false);

    const set = spawnSync(process.execPath, [BIN, 'settings', 'set', 'digest.remote.apiKey', '-', '--data', lib.dataDir], { cwd: ROOT, encoding: 'utf8', input: NEW_KEY, timeout: 60_000 });
    expect(set.stderr).toBe('');
    expect(set.status).toBe(0);

    await until('the hold to lift and a request with the new key', async () => {
      const lane = await remoteLane(base);
      return lane.hold?.code !== 'PREFLIGHT_FAILED' && server.requests.some((r) => r.authorization === `Bearer ${NEW_KEY}`) ? true : undefined;
    }, 60_000);
  }, 150_000);
});
