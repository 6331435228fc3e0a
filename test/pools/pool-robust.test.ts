// How a pool rides out what goes wrong between a worker and the host (docs/pools.md "What each failure
// does"), with real processes: a test redis-server, the worker door and the host's PoolTransport in
// this process (pool-fixture.ts), real `backlot worker` processes, and a small TCP proxy between the
// workers and the door that can cut an upload mid-way and then refuse every connection for a while:
// 1. an upload cut mid-way, the host's door then unreachable for twice the lease: the worker waits with
//    backoff (its lock renewed), goes on from the byte the host holds, and the unit ends once, whole.
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMP_DIR_NAME } from '../../src-main/engines/commit-output';
import { freePort } from './redis-server';
import { LONG, PoolRig, lineOf } from './pool-fixture';

/**
 * A TCP proxy in front of the worker door. `cutPutAfter(n)`: once n bytes of a PUT's request have
 * passed, both sides of that connection are reset and the proxy stops listening (the host is away)
 * until `up()`. It notes every `content-range` a worker sent, so a test sees where an upload went on.
 */
class DoorProxy {
  readonly ranges: { start: number; total: number }[] = [];
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private cutAt: number | null = null;
  private onCut: (() => void) | null = null;

  private constructor(readonly port: number, private readonly target: number) {}

  static async open(target: number): Promise<DoorProxy> {
    const proxy = new DoorProxy(await freePort(), target);
    await proxy.up();
    return proxy;
  }

  up(): Promise<void> {
    const server = net.createServer((client) => this.connect(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
  }

  /** Resolves once a PUT was cut after `bytes` bytes of its request; the proxy is down from then on. */
  cutPutAfter(bytes: number): Promise<void> {
    this.cutAt = bytes;
    return new Promise((resolve) => { this.onCut = resolve; });
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.resetAndDestroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private connect(client: net.Socket): void {
    const upstream = net.connect(this.target, '127.0.0.1');
    this.sockets.add(client);
    this.sockets.add(upstream);
    let putBytes = -1;
    const forget = () => { this.sockets.delete(client); this.sockets.delete(upstream); };
    client.on('close', forget);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.pipe(client);
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      for (const m of text.matchAll(/content-range: bytes (\d+)-\d+\/(\d+)/gi)) this.ranges.push({ start: Number(m[1]), total: Number(m[2]) });
      if (/^PUT \//m.test(text)) putBytes = 0;
      if (putBytes >= 0) putBytes += chunk.length;
      if (this.cutAt !== null && putBytes > this.cutAt) {
        this.cutAt = null;
        // The bytes up to here reach the door; then the connection is reset mid-body and the host is away.
        upstream.write(chunk, () => {
          void this.down().then(() => this.onCut?.());
        });
        return;
      }
      upstream.write(chunk);
    });
  }
}

/** What the test engine writes for `bytes` in its default four chunks (engine.mjs): the expected upload. */
function testEngineBytes(bytes: number, chunks = 4): Buffer {
  const parts: Buffer[] = [];
  let written = 0;
  for (let i = 0; i < chunks; i++) {
    const size = i === chunks - 1 ? bytes - written : Math.floor(bytes / chunks);
    parts.push(Buffer.alloc(size, 0x61 + (i % 26)));
    written += size;
  }
  return Buffer.concat(parts);
}

const BIG = 'item-big';
const BIG_BYTES = 8_000_000;
const LEASE_S = 5;
const FAULTS = JSON.stringify({ [BIG]: { bytes: BIG_BYTES } });

let rig: PoolRig;
let proxy: DoorProxy;

beforeAll(async () => {
  rig = await PoolRig.start('pool-robust');
  proxy = await DoorProxy.open(rig.doorPort);
}, LONG);

afterAll(async () => {
  await proxy?.down();
  await rig?.close();
}, LONG);

describe('an upload cut mid-way while the host is away', () => {
  it('waits for the door with backoff, keeps its lock, goes on from the byte the host holds, and ends once with the same bytes', async () => {
    // The join file sends workers to the proxy; the door listens behind it.
    const join = await rig.addPool({ name: 'studio', leaseS: LEASE_S }, `127.0.0.1:${proxy.port}`);
    const worker = await rig.startWorker(join, { name: 'worker-upload', env: { BACKLOT_TEST_FAULTS: FAULTS }, ready: /serving cpu@studio/ });
    await rig.lanesUntil((ls) => ls.some((l) => l.queueKey === 'cpu@studio' && l.hold === null));

    const job = await rig.unitJob(BIG, 'cut');
    const cut = proxy.cutPutAfter(BIG_BYTES / 4);
    const running = rig.run('studio', job);
    await cut;
    const cutAt = Date.now();
    // The worker finds the door gone and waits, more than once, with growing pauses.
    await lineOf(worker, new RegExp(`${job.jobId} door unreachable \\(\\w+\\) during the upload of .*; try 3 in`));
    // The host stays away for twice the lease (this case's input, not a race with the work): a lock
    // the worker stopped renewing would have lapsed and the unit been taken again.
    await sleep(Math.max(0, cutAt + 2 * LEASE_S * 1000 - Date.now()));
    await proxy.up();

    const outcome = await running;
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.outputs).toHaveLength(1);
    const bytes = fs.readFileSync(outcome.outputs[0].path);
    const expected = testEngineBytes(BIG_BYTES);
    expect(bytes.length).toBe(BIG_BYTES);
    expect(crypto.createHash('sha256').update(bytes).digest('hex')).toBe(crypto.createHash('sha256').update(expected).digest('hex'));
    // Taken once, ended once: the lock held through the outage, nothing ran twice.
    expect(worker.out.filter((l) => l.includes(`took ${job.jobId} `))).toHaveLength(1);
    expect(worker.out.filter((l) => l.includes(`${job.jobId} ended: `))).toEqual([`backlot worker: ${job.jobId} ended: ok`]);
    // The upload began at byte 0 and went on from a byte inside the file, never from the start again.
    const starts = proxy.ranges.filter((r) => r.total === BIG_BYTES).map((r) => r.start);
    expect(starts[0]).toBe(0);
    expect(starts.length).toBeGreaterThanOrEqual(2);
    expect(starts.slice(1).every((s) => s > 0 && s < BIG_BYTES)).toBe(true);
    // The job's folder holds the one output, nothing of a lost attempt.
    expect(fs.readdirSync(job.outputDir)).toEqual([path.basename(outcome.outputs[0].path)]);
    fs.rmSync(job.outputDir, { recursive: true, force: true });
    await rig.transport.settled();
    expect(await rig.noJobLeft('studio')).toBe(true);
    expect(fs.readdirSync(path.join(rig.lib, TEMP_DIR_NAME))).toEqual([]);
    await rig.stopWorker(worker);
  }, LONG);
});
