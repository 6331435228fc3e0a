// The model manager against hostile servers on 127.0.0.1 (issue 23): a redirect to a link-local
// metadata address, a server that stalls, one that announces more than the disk holds, and a gzip
// body. Each is refused with its code before the disk fills, and no partial file is kept; the
// redirect rule for addresses on this machine is checked without any traffic.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addModel } from '../../src-main/models/index';
import { checkRedirectTarget } from '../../src-main/library/net/url-policy';
import { isBacklotError } from '../../src-shared/errors';

const GZIPPED = zlib.gzipSync(Buffer.alloc(8 * 1024 * 1024));
const GZ_SHA = createHash('sha256').update(GZIPPED).digest('hex');
const ANY_SHA = 'a'.repeat(64);
let server: http.Server;
let base = '';
const open = new Set<http.ServerResponse>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    if (p === '/metadata.bin') { res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(); return; }
    if (p === '/stall.bin') { open.add(res); res.writeHead(200, { 'content-length': '1000' }); res.write(Buffer.alloc(10)); return; }
    if (p === '/huge.bin') {
      const free = fs.statfsSync(os.tmpdir());
      open.add(res);
      res.writeHead(200, { 'content-length': String(free.bavail * free.bsize + 1024 ** 3) });
      res.write(Buffer.alloc(64 * 1024));
      return;
    }
    if (p === '/gzip.bin') { res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': String(GZIPPED.length) }).end(GZIPPED); return; }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => { for (const r of open) r.destroy(); server.close(() => resolve()); }));

let modelsDir = '';
beforeEach(() => { modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-hostile-models-')); });

async function refusal(p: Promise<unknown>): Promise<{ code: string; params: Record<string, unknown> }> {
  try { await p; } catch (e) { if (isBacklotError(e)) return { code: e.code, params: e.params }; throw e; }
  throw new Error('expected a refusal');
}

const partials = () => { try { return fs.readdirSync(path.join(modelsDir, '.partial')); } catch { return []; } };

describe('the model manager against hostile servers', () => {
  it('refuses a redirect to a link-local metadata address, keeping no partial', async () => {
    const r = await refusal(addModel({ modelsDir, source: `${base}/metadata.bin`, sha256: ANY_SHA, retries: 0 }));
    expect(r).toMatchObject({ code: 'URL_ADDRESS_REFUSED', params: { address: '169.254.169.254' } });
    expect(partials()).toEqual([]);
  });

  it('never follows a redirect from elsewhere onto this machine; a fetch that began here may stay', async () => {
    const elsewhere = new URL('http://93.184.216.34/model.bin');
    for (const target of ['http://127.0.0.1:8080/admin', 'http://[::1]/x', 'http://0.0.0.0/x', 'http://[::ffff:127.0.0.1]/x']) {
      await expect(checkRedirectTarget(elsewhere, new URL(target))).rejects.toMatchObject({ code: 'URL_ADDRESS_REFUSED' });
    }
    await expect(checkRedirectTarget(elsewhere, new URL('http://93.184.216.35/x'))).resolves.toBeUndefined();
    await expect(checkRedirectTarget(new URL('http://127.0.0.1:9/a'), new URL('http://127.0.0.2:9/b'))).resolves.toBeUndefined();
  });

  it('stops a server that stalls after its idle timeout', async () => {
    const r = await refusal(addModel({ modelsDir, source: `${base}/stall.bin`, sha256: ANY_SHA, retries: 0, idleTimeoutMs: 300 }));
    expect(r).toMatchObject({ code: 'MODEL_DOWNLOAD_STALLED', params: { idleTimeoutMs: 300 } });
  });

  it('checks an announced size against the free space before the first byte, and removes the partial', async () => {
    const r = await refusal(addModel({ modelsDir, source: `${base}/huge.bin`, sha256: ANY_SHA, retries: 0 }));
    expect(r.code).toBe('MODEL_DISK_FULL');
    expect(r.params.needBytes).toBeGreaterThan(r.params.freeBytes as number);
    expect(partials()).toEqual([]);
  });

  it('stores a gzip body as sent, never inflated', async () => {
    const m = await addModel({ modelsDir, source: `${base}/gzip.bin`, sha256: GZ_SHA, id: 'gz' });
    expect(m.bytes).toBe(GZIPPED.length);
    expect(fs.readFileSync(m.path).equals(GZIPPED)).toBe(true);
  });

  it('takes a 300-character file name in a model URL without ENAMETOOLONG', async () => {
    const r = await refusal(addModel({ modelsDir, source: `${base}/${'n'.repeat(300)}.bin`, sha256: ANY_SHA, retries: 0 }));
    expect(r.code).toBe('MODEL_DOWNLOAD_FAILED');
  });
});
