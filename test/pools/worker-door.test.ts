// The worker door over real HTTP on 127.0.0.1 (docs/pools.md "The worker door"), with pools made by
// PoolAdmin against a test redis-server: door tokens (another pool's, a rotated one), unit tickets
// (expired, revoked, a file outside the ticket), byte-exact ranges, and uploads cut mid-way that
// resume to the exact bytes, a size limit, a revoked upload token and names that are paths.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src-main/db/connection';
import { SettingsStore } from '../../src-main/settings/settings-store';
import { PoolAdmin } from '../../src-main/pools/pool-admin';
import { readJoinFile } from '../../src-main/pools/join-file';
import { openWorkerDoor, type WorkerDoor } from '../../src-main/pools/worker-door/door-server';
import { TicketBook } from '../../src-main/pools/worker-door/tickets';
import { temporaryOutputDir } from '../../src-main/engines/commit-output';
import { freePort, startRedis, type TestRedis } from './redis-server';
import { backoffMs, fetchUnitFile, uploadUnitOutput, type DoorPatience } from '../../src-main/worker/door-client';

let root: string;
let lib: string;
let redis: TestRedis;
let db: Db;
let admin: PoolAdmin;
let door: WorkerDoor;
let clock = 1_000_000;
const tickets = new TicketBook(() => clock);
const token: Record<string, string> = {};
let media: Buffer;
let mediaFile: string;
let otherFile: string;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-door-'));
  redis = await startRedis(root);
  lib = path.join(root, 'library');
  fs.mkdirSync(lib);
  db = openDatabase(path.join(lib, 'backlot.sqlite'));
  const settings = new SettingsStore(db);
  settings.set('transport.redisUrl', `redis://backlot-admin@127.0.0.1:${redis.port}`);
  settings.set('transport.redisPassword', redis.password);
  admin = new PoolAdmin(db, settings);
  for (const name of ['studio', 'seedbox']) {
    const made = await admin.add({ name, lanes: ['cpu'], slots: {}, media: 'http', maps: [], leaseS: 30 }, path.join(root, `${name}.join`), { workerListen: '127.0.0.1:7455' });
    token[name] = readJoinFile(made.joinFile).join.door.token;
  }
  media = crypto.randomBytes(1024 * 1024 + 17);
  mediaFile = path.join(lib, 'media', 'episode one.opus');
  fs.mkdirSync(path.dirname(mediaFile));
  fs.writeFileSync(mediaFile, media);
  otherFile = path.join(lib, 'media', 'other.opus');
  fs.writeFileSync(otherFile, 'not on the ticket');
  door = await openWorkerDoor({ pools: admin.store, listen: '127.0.0.1:0', jobDir: (jobId) => temporaryOutputDir(lib, jobId), tickets });
});

afterAll(async () => {
  await door?.close();
  db?.close();
  await redis.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

const at = (p: string) => new URL(p, door.url);
const bearer = (pool: string) => ({ authorization: `Bearer ${token[pool]}` });

async function refusal(res: Response): Promise<{ status: number; code: string; message: string }> {
  const body = await res.json() as { code: string; message: string };
  expect(body.message).toMatch(/\.$/);
  return { status: res.status, code: body.code, message: body.message };
}

/** A PUT with the raw client, so a test can cut it after some bytes. */
function rawPut(url: URL, headers: http.OutgoingHttpHeaders, body: Buffer): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'PUT', headers: { 'content-length': body.length, ...headers } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => { text += c.toString(); });
      res.on('end', () => resolve({ status: res.statusCode!, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the door token', () => {
  it('answers the health address to the pool\'s own token only', async () => {
    const ok = await fetch(at('/worker/v1/pools/studio/hello'), { headers: bearer('studio') });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ door: 'backlot-worker-door', version: 1, pool: 'studio' });

    for (const headers of [{}, { authorization: 'Bearer wrong-token-wrong-token-wrong' }, bearer('seedbox'), { authorization: `Basic ${token.studio}` }]) {
      expect(await refusal(await fetch(at('/worker/v1/pools/studio/hello'), { headers }))).toMatchObject({ status: 401, code: 'DOOR_TOKEN_INVALID' });
    }
    expect(await refusal(await fetch(at('/worker/v1/pools/nopool/hello'), { headers: bearer('studio') }))).toMatchObject({ status: 401, code: 'DOOR_TOKEN_INVALID' });
    expect(await refusal(await fetch(at('/elsewhere'), { headers: bearer('studio') }))).toMatchObject({ status: 404, code: 'DOOR_NOT_FOUND' });
  });
});

describe('media through a unit ticket', () => {
  it('reads the ticket\'s file whole and by byte ranges, byte-exact, and resumes with If-Range', async () => {
    const t = tickets.issueUnitTicket('studio', 'unit-1', [mediaFile]);
    expect(t.files).toEqual([{ index: 0, name: 'episode one.opus', size: media.length, tag: expect.stringMatching(/^[0-9a-f]{32}$/) }]);
    const headers = { ...bearer('studio'), 'x-backlot-ticket': t.ticket };
    const url = at('/worker/v1/pools/studio/units/unit-1/files/0');

    const whole = await fetch(url, { headers });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await whole.arrayBuffer()).equals(media)).toBe(true);

    const part = await fetch(url, { headers: { ...headers, range: 'bytes=100-4195' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-4195/${media.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(media.subarray(100, 4196))).toBe(true);

    const tail = await fetch(url, { headers: { ...headers, range: 'bytes=-17' } });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(media.subarray(media.length - 17))).toBe(true);

    const beyond = await fetch(url, { headers: { ...headers, range: `bytes=${media.length}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${media.length}`);
    expect((await refusal(beyond)).code).toBe('RANGE_NOT_SATISFIABLE');

    // A read cut at some byte goes on from there; the tag proves it is the same file.
    const cut = 300_001;
    const first = await fetch(url, { headers: { ...headers, range: `bytes=0-${cut - 1}` } });
    const etag = first.headers.get('etag')!;
    // The worker is told the same tag with the ticket: its media cache keys on it.
    expect(etag).toBe(`"${t.files[0].tag}"`);
    const rest = await fetch(url, { headers: { ...headers, range: `bytes=${cut}-`, 'if-range': etag } });
    expect(rest.status).toBe(206);
    expect(Buffer.concat([Buffer.from(await first.arrayBuffer()), Buffer.from(await rest.arrayBuffer())]).equals(media)).toBe(true);
    const stale = await fetch(url, { headers: { ...headers, range: `bytes=${cut}-`, 'if-range': '"another-version"' } });
    expect(stale.status).toBe(200);
    expect(Buffer.from(await stale.arrayBuffer()).equals(media)).toBe(true);
  });

  it('refuses a file outside the ticket, another unit\'s or pool\'s ticket, an expired and a revoked ticket', async () => {
    const t = tickets.issueUnitTicket('studio', 'unit-2', [mediaFile], { ttlMs: 60_000 });
    const headers = { ...bearer('studio'), 'x-backlot-ticket': t.ticket };
    const read = (p: string, h: Record<string, string> = headers) => fetch(at(p), { headers: h }).then(refusal);

    expect(await read('/worker/v1/pools/studio/units/unit-2/files/1')).toMatchObject({ status: 403, code: 'TICKET_FOREIGN_FILE' });
    expect(await read('/worker/v1/pools/studio/units/unit-2/files/..%2Fother.opus')).toMatchObject({ status: 403, code: 'TICKET_FOREIGN_FILE' });
    tickets.issueUnitTicket('studio', 'unit-3', [otherFile]);
    expect(await read('/worker/v1/pools/studio/units/unit-3/files/0')).toMatchObject({ status: 403, code: 'TICKET_INVALID' });
    // Seedbox's door token opens seedbox's addresses, where studio's ticket means nothing.
    expect(await read('/worker/v1/pools/seedbox/units/unit-2/files/0', { ...bearer('seedbox'), 'x-backlot-ticket': t.ticket })).toMatchObject({ status: 403, code: 'TICKET_INVALID' });
    expect(await read('/worker/v1/pools/studio/units/unit-2/files/0', { ...bearer('seedbox'), 'x-backlot-ticket': t.ticket })).toMatchObject({ status: 401, code: 'DOOR_TOKEN_INVALID' });

    expect((await fetch(at('/worker/v1/pools/studio/units/unit-2/files/0'), { headers })).status).toBe(200);
    clock += 60_000;
    expect(await read('/worker/v1/pools/studio/units/unit-2/files/0')).toMatchObject({ status: 403, code: 'TICKET_EXPIRED' });

    const again = tickets.issueUnitTicket('studio', 'unit-2', [mediaFile]);
    // Issuing again replaces the old ticket: its token no longer works, the new one does.
    expect(await read('/worker/v1/pools/studio/units/unit-2/files/0')).toMatchObject({ code: 'TICKET_INVALID' });
    const fresh = { ...bearer('studio'), 'x-backlot-ticket': again.ticket };
    expect((await fetch(at('/worker/v1/pools/studio/units/unit-2/files/0'), { headers: fresh })).status).toBe(200);
    expect(tickets.revokeUnit('studio', 'unit-2')).toBe(true);
    expect(await read('/worker/v1/pools/studio/units/unit-2/files/0', fresh)).toMatchObject({ status: 403, code: 'TICKET_REVOKED' });
  });

  it('issues tickets for absolute paths of existing files and plain unit ids only', () => {
    const codeOf = (f: () => unknown): string => {
      try { f(); } catch (e) { return (e as { code: string }).code; }
      throw new Error('expected a refusal');
    };
    expect(codeOf(() => tickets.issueUnitTicket('studio', 'unit-5', ['media/other.opus']))).toBe('TICKET_FILE_INVALID');
    expect(codeOf(() => tickets.issueUnitTicket('studio', 'unit-5', [path.join(lib, 'media')]))).toBe('TICKET_FILE_INVALID');
    expect(codeOf(() => tickets.issueUnitTicket('studio', 'unit-5', [path.join(lib, 'missing.opus')]))).toBe('TICKET_FILE_MISSING');
    expect(codeOf(() => tickets.issueUnitTicket('studio', '../unit', [mediaFile]))).toBe('TICKET_UNIT_INVALID');
    expect(codeOf(() => tickets.issueUnitTicket('studio', 'unit-5', [mediaFile], { jobId: 'a/b' }))).toBe('JOB_ID_INVALID');
  });

  it('refuses a file changed since its ticket was issued', async () => {
    const file = path.join(lib, 'media', 'changing.opus');
    fs.writeFileSync(file, 'first version');
    const t = tickets.issueUnitTicket('studio', 'unit-4', [file]);
    fs.writeFileSync(file, 'a longer second version');
    const res = await fetch(at('/worker/v1/pools/studio/units/unit-4/files/0'), { headers: { ...bearer('studio'), 'x-backlot-ticket': t.ticket } });
    expect(await refusal(res)).toMatchObject({ status: 409, code: 'MEDIA_CHANGED' });
  });
});

describe('uploads of outputs', () => {
  const out = crypto.randomBytes(3 * 1024 * 1024 + 5);

  it('resumes an upload cut mid-way and ends with the exact bytes', async () => {
    const t = tickets.issueUnitTicket('studio', 'unit-up', [], { jobId: 'job-up' });
    const url = at('/worker/v1/pools/studio/units/unit-up/outputs/transcript.json');
    const headers = { ...bearer('studio'), 'x-backlot-upload': t.uploadToken };
    const target = path.join(temporaryOutputDir(lib, 'job-up'), 'transcript.json');

    // Send the whole length's header but only the first megabyte, wait until the host holds some
    // of it, then cut the connection.
    const sent = 1024 * 1024;
    await new Promise<void>((resolve) => {
      const req = http.request(url, { method: 'PUT', headers: { ...headers, 'content-length': out.length, 'content-range': `bytes 0-${out.length - 1}/${out.length}` } });
      req.on('error', () => undefined);
      req.on('close', () => resolve());
      req.write(out.subarray(0, sent));
      const watch = (): void => {
        let size = 0;
        try { size = fs.statSync(target).size; } catch { size = 0; }
        if (size > 0) req.destroy();
        else setTimeout(watch, 5);
      };
      watch();
    });
    const head = await fetch(url, { method: 'HEAD', headers });
    expect(head.status).toBe(200);
    const offset = Number(head.headers.get('upload-offset'));
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThanOrEqual(sent);

    // A resume from the wrong byte is told where to go on.
    const wrong = await rawPut(url, { ...headers, 'content-range': `bytes 0-9/${out.length}` }, out.subarray(0, 10));
    expect(wrong.status).toBe(409);
    expect(JSON.parse(wrong.body)).toMatchObject({ code: 'UPLOAD_OFFSET_MISMATCH' });
    expect(Number(wrong.headers['upload-offset'])).toBe(offset);

    const rest = await rawPut(url, { ...headers, 'content-range': `bytes ${offset}-${out.length - 1}/${out.length}` }, out.subarray(offset));
    expect(rest.status).toBe(200);
    expect(JSON.parse(rest.body)).toEqual({ offset: out.length, complete: true });
    expect(fs.readFileSync(target).equals(out)).toBe(true);
    expect(fs.statSync(target).mode & 0o777).toBe(0o600);
  });

  it('a restarted host that adopts a unit takes its worker\'s tokens again, and the worker\'s client goes on from the bytes kept', async () => {
    const issued = tickets.issueUnitTicket('studio', 'unit-adopt', [mediaFile], { jobId: 'job-adopt' });
    const url = at('/worker/v1/pools/studio/units/unit-adopt/outputs/words.json');
    const part = 1024 * 1024;
    const first = await rawPut(url, { ...bearer('studio'), 'x-backlot-upload': issued.uploadToken, 'content-range': `bytes 0-${part - 1}/${out.length}` }, out.subarray(0, part));
    expect(first.status).toBe(200);
    await door.close();

    // The host restarts: a new door and a new book, the ticket put back from the job's tokens (the
    // temporary folder is kept for an adopted unit).
    const book = new TicketBook(() => clock);
    const again = await openWorkerDoor({ pools: admin.store, listen: '127.0.0.1:0', jobDir: (jobId) => temporaryOutputDir(lib, jobId), tickets: book });
    try {
      const unit = { door: { url: again.url, token: token.studio }, pool: 'studio', unitId: 'unit-adopt' };
      const src = path.join(root, 'words.json');
      fs.writeFileSync(src, out);
      await expect(uploadUnitOutput(unit, issued.uploadToken, 'words.json', src)).rejects.toMatchObject({ code: 'UPLOAD_TOKEN_REFUSED' });
      // Files that are not what the worker was told of: not adopted, and its tokens stay refused.
      expect(() => book.restoreUnitTicket('studio', 'unit-adopt', [otherFile], issued, issued.files, { jobId: 'job-adopt' })).toThrow(/not the ones its worker was told of/);
      await expect(uploadUnitOutput(unit, issued.uploadToken, 'words.json', src)).rejects.toMatchObject({ code: 'UPLOAD_TOKEN_REFUSED' });

      book.restoreUnitTicket('studio', 'unit-adopt', [mediaFile], issued, issued.files, { jobId: 'job-adopt' });
      const head = await fetch(new URL('/worker/v1/pools/studio/units/unit-adopt/outputs/words.json', again.url), { method: 'HEAD', headers: { ...bearer('studio'), 'x-backlot-upload': issued.uploadToken } });
      expect(Number(head.headers.get('upload-offset'))).toBe(part);
      await uploadUnitOutput(unit, issued.uploadToken, 'words.json', src);
      expect(fs.readFileSync(path.join(temporaryOutputDir(lib, 'job-adopt'), 'words.json')).equals(out)).toBe(true);
      const read = path.join(root, 'read.opus');
      await fetchUnitFile(unit, issued.ticket, 0, media.length, read);
      expect(fs.readFileSync(read).equals(media)).toBe(true);
      book.revokeUnit('studio', 'unit-adopt');
      fs.rmSync(temporaryOutputDir(lib, 'job-adopt'), { recursive: true, force: true });
    } finally {
      await again.close();
      door = await openWorkerDoor({ pools: admin.store, listen: '127.0.0.1:0', jobDir: (jobId) => temporaryOutputDir(lib, jobId), tickets });
    }
  });

  it('a worker\'s upload waits for a host that is away and restarts: connection refused, then an unknown token until the ticket is back, then on from the bytes kept', async () => {
    const port = await freePort();
    const listen = `127.0.0.1:${port}`;
    const firstBook = new TicketBook(() => clock);
    let current: WorkerDoor | null = await openWorkerDoor({ pools: admin.store, listen, jobDir: (jobId) => temporaryOutputDir(lib, jobId), tickets: firstBook });
    const issued = firstBook.issueUnitTicket('studio', 'unit-away', [mediaFile], { jobId: 'job-away' });
    const part = 512 * 1024;
    const first = await rawPut(new URL('/worker/v1/pools/studio/units/unit-away/outputs/words.json', current.url), { ...bearer('studio'), 'x-backlot-upload': issued.uploadToken, 'content-range': `bytes 0-${part - 1}/${out.length}` }, out.subarray(0, part));
    expect(first.status).toBe(200);
    // The host goes away.
    await current.close();
    current = null;
    const book = new TicketBook(() => clock);
    const reasons: string[] = [];
    // Each step of the host's restart is taken when the worker says it waits, so no step races the client.
    const patience: DoorPatience = {
      firstMs: 20, capMs: 200, giveUpMs: 60_000,
      onWait: ({ reason }) => {
        reasons.push(reason);
        if (reasons.length === 2) void openWorkerDoor({ pools: admin.store, listen, jobDir: (jobId) => temporaryOutputDir(lib, jobId), tickets: book }).then((d) => { current = d; });
        if (reason.startsWith('the host has not taken')) book.restoreUnitTicket('studio', 'unit-away', [mediaFile], issued, issued.files, { jobId: 'job-away' });
      },
    };
    const src = path.join(root, 'words-away.json');
    fs.writeFileSync(src, out);
    try {
      await uploadUnitOutput({ door: { url: `http://${listen}`, token: token.studio }, pool: 'studio', unitId: 'unit-away' }, issued.uploadToken, 'words.json', src, undefined, patience);
      expect(reasons.slice(0, 2)).toEqual(['ECONNREFUSED', 'ECONNREFUSED']);
      expect(reasons).toContain('the host has not taken the unit up again yet');
      expect(fs.readFileSync(path.join(temporaryOutputDir(lib, 'job-away'), 'words.json')).equals(out)).toBe(true);
      // A revoked token is the host's last word: no waiting then.
      book.revokeUnit('studio', 'unit-away');
      await expect(uploadUnitOutput({ door: { url: `http://${listen}`, token: token.studio }, pool: 'studio', unitId: 'unit-away' }, issued.uploadToken, 'other.json', src, undefined, patience)).rejects.toMatchObject({ code: 'UPLOAD_TOKEN_REFUSED' });
    } finally {
      await (current as WorkerDoor | null)?.close();
      fs.rmSync(temporaryOutputDir(lib, 'job-away'), { recursive: true, force: true });
    }
    // Past its patience the worker gives up with a code of its own.
    const gone: DoorPatience = { firstMs: 10, capMs: 20, giveUpMs: 100 };
    await expect(uploadUnitOutput({ door: { url: `http://${listen}`, token: token.studio }, pool: 'studio', unitId: 'unit-away' }, issued.uploadToken, 'words.json', src, undefined, gone)).rejects.toMatchObject({ code: 'WORKER_DOOR_UNREACHABLE' });
  });

  it('waits between tries by doubling pauses, capped, with half of each pause random', () => {
    const p = { firstMs: 250, capMs: 8000 };
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffMs(n, p, () => 1))).toEqual([250, 500, 1000, 2000, 4000, 8000, 8000]);
    expect([1, 2, 3, 7].map((n) => backoffMs(n, p, () => 0))).toEqual([125, 250, 500, 4000]);
  });

  it('takes ?offset= pieces, refuses too much, a path for a name, and a revoked or foreign upload token', async () => {
    const t = tickets.issueUnitTicket('studio', 'unit-lim', [], { jobId: 'job-lim', maxUploadBytes: 1000 });
    const headers = { ...bearer('studio'), 'x-backlot-upload': t.uploadToken };
    const url = (name: string, q = '') => at(`/worker/v1/pools/studio/units/unit-lim/outputs/${name}${q}`);
    const dir = temporaryOutputDir(lib, 'job-lim');

    expect((await rawPut(url('a.txt', '?offset=0'), headers, Buffer.alloc(600, 1))).status).toBe(200);
    expect((await rawPut(url('a.txt', '?offset=600'), headers, Buffer.alloc(300, 2))).status).toBe(200);
    expect(fs.readFileSync(path.join(dir, 'a.txt')).equals(Buffer.concat([Buffer.alloc(600, 1), Buffer.alloc(300, 2)]))).toBe(true);

    // The limit holds for the whole unit, announced (Content-Length) or not (chunked).
    const big = await rawPut(url('b.txt'), headers, Buffer.alloc(200, 3));
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body)).toMatchObject({ code: 'UPLOAD_TOO_LARGE' });
    const chunked = await fetch(url('b.txt'), {
      method: 'PUT', headers, duplex: 'half',
      body: new ReadableStream({ start(c) { c.enqueue(new Uint8Array(150)); c.close(); } }),
    } as RequestInit);
    expect(await refusal(chunked)).toMatchObject({ status: 413, code: 'UPLOAD_TOO_LARGE' });
    expect(fs.existsSync(path.join(dir, 'b.txt')) ? fs.statSync(path.join(dir, 'b.txt')).size : 0).toBe(0);

    for (const name of ['..%2F..%2Fbacklot.sqlite', '.hidden', '%2Fetc%2Fpasswd', 'a%00b']) {
      const bad = await rawPut(url(name), headers, Buffer.alloc(1));
      expect(bad.status, name).toBe(400);
      expect(JSON.parse(bad.body), name).toMatchObject({ code: 'UPLOAD_NAME_INVALID' });
    }
    const foreign = await rawPut(url('c.txt'), { ...bearer('studio'), 'x-backlot-upload': 'not-the-upload-token' }, Buffer.alloc(1));
    expect(JSON.parse(foreign.body)).toMatchObject({ code: 'UPLOAD_TOKEN_INVALID' });
    // The media ticket is not an upload token.
    expect(JSON.parse((await rawPut(url('c.txt'), { ...bearer('studio'), 'x-backlot-upload': t.ticket }, Buffer.alloc(1))).body)).toMatchObject({ code: 'UPLOAD_TOKEN_INVALID' });

    tickets.revokeUnit('studio', 'unit-lim');
    const late = await rawPut(url('a.txt', '?offset=900'), headers, Buffer.alloc(10, 4));
    expect(late.status).toBe(403);
    expect(JSON.parse(late.body)).toMatchObject({ code: 'UPLOAD_TOKEN_REVOKED' });
    expect(fs.statSync(path.join(dir, 'a.txt')).size).toBe(900);
    // Nothing landed outside the units' folders, and nothing but plain names inside them.
    expect(fs.readdirSync(path.join(lib, '.backlot-tmp')).sort()).toEqual(['job-lim', 'job-up']);
    expect(fs.readdirSync(dir).filter((n) => n !== 'b.txt')).toEqual(['a.txt']);
    expect(fs.readdirSync(lib).sort()).toEqual(expect.not.arrayContaining(['etc', 'passwd', 'a.txt', 'c.txt']));
  });

  it('shuts a rotated pool token out at once', async () => {
    await admin.rotate('seedbox');
    const res = await fetch(at('/worker/v1/pools/seedbox/hello'), { headers: bearer('seedbox') });
    expect(await refusal(res)).toMatchObject({ status: 401, code: 'DOOR_TOKEN_INVALID' });
  });
});
