// Many windows re-read the same answer after the same event (docs/window.md "Many windows"): the
// headless shell keeps a file-only read's answer until the library file changes, through this
// process's own writes or another connection's commit, and never keeps anything else.
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Host } from '../../src-main/host/host';
import { createHandlers } from '../../src-main/api/handlers';
import { startHeadlessServer, type HeadlessServer } from '../../src-main/shells/headless/server';
import { ReadMemo } from '../../src-main/shells/headless/read-memo';
import { createFixtureLibrary, FIXTURE_CHANNEL, type FixtureLibrary } from './library-fixture';

const TOKEN = 'memo-token-0123456789';
let lib: FixtureLibrary;
let host: Host;
let server: HeadlessServer;

beforeAll(async () => {
  lib = createFixtureLibrary(3);
  host = new Host({ databaseFile: lib.databaseFile });
  server = await startHeadlessServer({
    handlers: createHandlers(host), subscribe: () => () => undefined, rendererDir: path.join(lib.dataDir, 'no-renderer'),
    token: TOKEN, readMemo: new ReadMemo(() => host.libraryVersion()),
  });
});

afterAll(async () => {
  await server?.close();
  host?.close();
  lib?.remove();
});

async function call(method: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`http://127.0.0.1:${server.port}/api/${method}`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}` }, body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const missing = (json: unknown) => (json as { channels: { id: string; operations: Record<string, Record<string, number>> }[] })
  .channels.find((c) => c.id === FIXTURE_CHANNEL.id)!.operations.transcribe;

describe('the read memo of the headless shell', () => {
  it('answers a repeated file-only read from the memo, the same answer byte for byte', async () => {
    const first = await call('snapshot.get', { channels: [FIXTURE_CHANNEL.id] });
    const kept = server.keptReads;
    const again = await call('snapshot.get', { channels: [FIXTURE_CHANNEL.id] });
    expect(again).toEqual(first);
    expect(server.keptReads).toBe(kept + 1);
    // Another request is another answer.
    await call('runs.list', { limit: 5 });
    expect(server.keptReads).toBe(kept + 1);
  });

  it('forgets it when this process writes the library', async () => {
    const before = await call('snapshot.get', {});
    host.transaction(() => host.db.prepare("UPDATE work_counts SET n = n + 7 WHERE channel_id = ? AND operation = 'transcribe' AND state = 'missing'").run(FIXTURE_CHANNEL.id));
    const kept = server.keptReads;
    const after = await call('snapshot.get', {});
    expect(server.keptReads).toBe(kept);
    expect(missing(after.json).missing).toBe(missing(before.json).missing + 7);
  });

  it('forgets it when another connection (another backlot process) commits', async () => {
    const before = await call('snapshot.get', {});
    const other = new Database(lib.databaseFile);
    try {
      other.prepare("UPDATE work_counts SET n = n + 2 WHERE channel_id = ? AND operation = 'transcribe' AND state = 'missing'").run(FIXTURE_CHANNEL.id);
    } finally {
      other.close();
    }
    const after = await call('snapshot.get', {});
    expect(missing(after.json).missing).toBe(missing(before.json).missing + 2);
  });

  it('never keeps a refusal or a read that depends on more than the file', async () => {
    const kept = server.keptReads;
    for (let i = 0; i < 2; i++) {
      expect((await call('snapshot.get', { channel: 'no-such-channel' })).status).toBeGreaterThanOrEqual(400);
      await call('settings.list', {});
      await call('tree.get', {});
    }
    expect(server.keptReads).toBe(kept);
  });
});
