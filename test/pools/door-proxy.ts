// A small TCP proxy between pool workers and the host's worker door (docs/pools.md "Tests"): it can
// cut an upload mid-way and then refuse every connection until told to listen again, as a host that
// went away would; and the bytes the test engine writes, to compare an upload with.
import net from 'node:net';
import { freePort } from './redis-server';

/**
 * A TCP proxy in front of the worker door. `cutPutAfter(n)`: once n bytes of a PUT's request have
 * passed, both sides of that connection are reset and the proxy stops listening (the host is away)
 * until `up()`. It notes every `content-range` a worker sent, so a test sees where an upload went on.
 */
export class DoorProxy {
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
export function testEngineBytes(bytes: number, chunks = 4): Buffer {
  const parts: Buffer[] = [];
  let written = 0;
  for (let i = 0; i < chunks; i++) {
    const size = i === chunks - 1 ? bytes - written : Math.floor(bytes / chunks);
    parts.push(Buffer.alloc(size, 0x61 + (i % 26)));
    written += size;
  }
  return Buffer.concat(parts);
}
