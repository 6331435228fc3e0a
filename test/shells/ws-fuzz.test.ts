// Hostile and broken clients against a real `backlot serve` process (issue 9, crash 1): raw TCP
// writes of hand-made WebSocket frames and HTTP requests, each from a token holder where the
// token matters. After every probe the same process must still answer the API, still push events
// to a window that was connected all along, and still be running: one malformed frame used to
// end the host with an unhandled 'error' event.
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { killAll, removeTempDirs, serve, TOKEN, type Served } from '../reliability/fixtures/host';
import { createFixtureLibrary, type FixtureLibrary } from './library-fixture';
import { mulberry32 } from '../../src-shared/corpus/random';
import { MAX_EVENT_CLIENTS } from '../../src-main/shells/headless/events';

let lib: FixtureLibrary;
let host: Served;
let port: number;
let watcher: WebSocket;
const watcherEvents: string[] = [];

beforeAll(async () => {
  lib = createFixtureLibrary(2);
  host = await serve(lib.dataDir);
  port = Number(new URL(host.url).port);
  watcher = new WebSocket(`ws://127.0.0.1:${port}/events?token=${TOKEN}`);
  watcher.on('message', (data) => watcherEvents.push(String(data)));
  await new Promise((resolve, reject) => { watcher.once('open', resolve); watcher.once('error', reject); });
});

afterAll(async () => {
  watcher?.terminate();
  if (host && host.proc.exitCode === null) await host.stop();
  killAll();
  removeTempDirs();
  lib?.remove();
});

// ---- frames ----------------------------------------------------------------------------------

interface FrameSpec {
  fin?: boolean;
  rsv?: number; // the three RSV bits, 0..7
  opcode: number;
  payload?: Buffer;
  masked?: boolean;
  /** Claim this payload length in the header whatever the payload is. */
  claimedLength?: bigint;
}

function frame(spec: FrameSpec): Buffer {
  const payload = spec.payload ?? Buffer.alloc(0);
  const masked = spec.masked ?? true;
  const length = spec.claimedLength ?? BigInt(payload.length);
  const head: number[] = [((spec.fin ?? true) ? 0x80 : 0) | ((spec.rsv ?? 0) << 4) | spec.opcode];
  const maskBit = masked ? 0x80 : 0;
  let ext = Buffer.alloc(0);
  if (length < 126n) {
    head.push(maskBit | Number(length));
  } else if (length < 65536n) {
    head.push(maskBit | 126);
    ext = Buffer.alloc(2);
    ext.writeUInt16BE(Number(length));
  } else {
    head.push(maskBit | 127);
    ext = Buffer.alloc(8);
    ext.writeBigUInt64BE(length);
  }
  if (!masked) return Buffer.concat([Buffer.from(head), ext, payload]);
  const key = randomBytes(4);
  const body = Buffer.from(payload.map((b, i) => b ^ key[i % 4]));
  return Buffer.concat([Buffer.from(head), ext, key, body]);
}

const closePayload = (code: number, reason: Buffer = Buffer.alloc(0)) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(code);
  return Buffer.concat([b, reason]);
};

// ---- raw sockets -----------------------------------------------------------------------------

interface Raw {
  socket: net.Socket;
  /** Everything the host sent so far. */
  received(): Buffer;
  /** Resolves when the host (or we) closed the connection. */
  closed: Promise<void>;
}

function connect(): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    socket.on('data', (c: Buffer) => { data = Buffer.concat([data, c]); });
    socket.on('error', () => undefined); // a reset from either side is part of some probes
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.once('connect', () => resolve({ socket, received: () => data, closed }));
    socket.once('error', reject);
  });
}

async function waitFor(raw: Raw, pattern: string): Promise<void> {
  while (!raw.received().toString('latin1').includes(pattern)) {
    if (raw.socket.destroyed) throw new Error(`connection closed before "${pattern}"; got ${raw.received().toString('latin1').slice(0, 200)}`);
    await new Promise((r) => raw.socket.once('data', r).once('close', r));
  }
}

function upgradeRequest(extra: Record<string, string | null> = {}, path = `/events?token=${TOKEN}`): string {
  const headers: Record<string, string | null> = {
    Host: `127.0.0.1:${port}`, Upgrade: 'websocket', Connection: 'Upgrade',
    'Sec-WebSocket-Key': randomBytes(16).toString('base64'), 'Sec-WebSocket-Version': '13', ...extra,
  };
  const lines = Object.entries(headers).filter(([, v]) => v !== null).map(([k, v]) => `${k}: ${v}`);
  return `GET ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

/** A WebSocket opened by hand; resolves once the 101 arrived. */
async function openRaw(): Promise<Raw> {
  const raw = await connect();
  raw.socket.write(upgradeRequest());
  await waitFor(raw, '\r\n\r\n');
  expect(raw.received().toString('latin1')).toMatch(/^HTTP\/1\.1 101 /);
  return raw;
}

/** The close code of the first close frame the host sent after the handshake, if any. */
function hostCloseCode(raw: Raw): number | null {
  const all = raw.received();
  let i = all.indexOf('\r\n\r\n') + 4;
  while (i + 2 <= all.length) {
    const opcode = all[i] & 0x0f;
    let len = all[i + 1] & 0x7f;
    let at = i + 2;
    if (len === 126) { len = all.readUInt16BE(at); at += 2; } else if (len === 127) { len = Number(all.readBigUInt64BE(at)); at += 8; }
    if (opcode === 0x8) return len >= 2 ? all.readUInt16BE(at) : 1005;
    i = at + len;
  }
  return null;
}

function statusOf(raw: Raw): number {
  const m = /^HTTP\/1\.1 (\d{3})/.exec(raw.received().toString('latin1'));
  return m ? Number(m[1]) : 0;
}

// ---- the host is still there -----------------------------------------------------------------

async function expectStillServing(): Promise<void> {
  expect(host.proc.exitCode).toBeNull();
  expect(host.proc.signalCode).toBeNull();
  const list = await host.call<{ channels: unknown[] }>('library.list');
  expect(list.channels).toHaveLength(1);
  // The window that was open all along still hears the host.
  const before = watcherEvents.length;
  await host.call('lanes.pause', { lane: 'sync' });
  await host.call('lanes.resume', { lane: 'sync' });
  while (!watcherEvents.slice(before).some((e) => JSON.parse(e).event === 'lanes-changed')) {
    await new Promise((r) => watcher.once('message', r));
  }
  expect(watcher.readyState).toBe(WebSocket.OPEN);
}

const rand = mulberry32(9009);
const randomPayload = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256)));

// Each probe: what it sends after a good handshake, and the close code the host answers with
// (null: the host keeps the connection; the probe ends it itself).
const FRAME_PROBES: { name: string; send: () => Buffer[]; closeCode: number | null }[] = [
  { name: 'a text frame over maxPayload (2 KiB)', send: () => [frame({ opcode: 0x1, payload: Buffer.alloc(2048, 0x61) })], closeCode: 1009 },
  { name: 'a 64-bit length of 2^53 with no payload', send: () => [frame({ opcode: 0x2, claimedLength: 2n ** 53n })], closeCode: 1009 },
  { name: 'a 64-bit length with the top bit set', send: () => [frame({ opcode: 0x2, claimedLength: 2n ** 63n + 5n })], closeCode: 1009 },
  { name: 'invalid UTF-8 in a text frame', send: () => [frame({ opcode: 0x1, payload: Buffer.from([0xc3, 0x28, 0xff, 0xfe]) })], closeCode: 1007 },
  { name: 'an unmasked client frame', send: () => [frame({ opcode: 0x1, payload: Buffer.from('hi'), masked: false })], closeCode: 1002 },
  { name: 'reserved data opcode 0x3', send: () => [frame({ opcode: 0x3, payload: Buffer.from('x') })], closeCode: 1002 },
  { name: 'reserved control opcode 0xB', send: () => [frame({ opcode: 0xb })], closeCode: 1002 },
  { name: 'RSV1 set without a negotiated extension', send: () => [frame({ opcode: 0x1, rsv: 4, payload: Buffer.from('x') })], closeCode: 1002 },
  { name: 'RSV2 and RSV3 set', send: () => [frame({ opcode: 0x1, rsv: 3, payload: Buffer.from('x') })], closeCode: 1002 },
  { name: 'a fragmented ping (control frame without FIN)', send: () => [frame({ opcode: 0x9, fin: false })], closeCode: 1002 },
  { name: 'a ping of 126 bytes (control frames stop at 125)', send: () => [frame({ opcode: 0x9, payload: Buffer.alloc(126) })], closeCode: 1002 },
  { name: 'a continuation frame with nothing to continue', send: () => [frame({ opcode: 0x0, payload: Buffer.from('x') })], closeCode: 1002 },
  {
    name: 'a new text frame inside a fragmented message',
    send: () => [frame({ opcode: 0x1, fin: false, payload: Buffer.from('a') }), frame({ opcode: 0x1, payload: Buffer.from('b') })], closeCode: 1002,
  },
  { name: 'a close frame with the invalid code 999', send: () => [frame({ opcode: 0x8, payload: closePayload(999) })], closeCode: 1002 },
  { name: 'a close frame with a 1-byte payload', send: () => [frame({ opcode: 0x8, payload: Buffer.from([3]) })], closeCode: 1002 },
  { name: 'a close reason that is not UTF-8', send: () => [frame({ opcode: 0x8, payload: closePayload(1000, Buffer.from([0xff, 0xfe])) })], closeCode: 1007 },
  { name: 'a fragmented message growing past maxPayload', send: () => Array.from({ length: 3 }, (_, i) => frame({ opcode: i === 0 ? 0x1 : 0x0, fin: i === 2, payload: Buffer.alloc(600, 0x62) })), closeCode: 1009 },
  { name: '4 KiB of seeded random bytes', send: () => [randomPayload(4096)], closeCode: -1 },
  { name: 'a binary frame (ignored)', send: () => [frame({ opcode: 0x2, payload: Buffer.from([1, 2, 3]) })], closeCode: null },
  { name: 'a valid text frame written one byte at a time (ignored)', send: () => [...frame({ opcode: 0x1, payload: Buffer.from('{"event":"x"}') })].map((b) => Buffer.from([b])), closeCode: null },
  { name: 'a ping (answered with a pong)', send: () => [frame({ opcode: 0x9, payload: Buffer.from('p') })], closeCode: null },
];

describe('hostile WebSocket frames from a token holder', () => {
  for (const probe of FRAME_PROBES) {
    it(`survives ${probe.name}`, async () => {
      const raw = await openRaw();
      for (const chunk of probe.send()) raw.socket.write(chunk);
      if (probe.closeCode === null) {
        // Kept open: the host still answers a ping on the same connection, then we leave.
        raw.socket.write(frame({ opcode: 0x9, payload: Buffer.from('still?') }));
        await waitFor(raw, 'still?');
        raw.socket.end(frame({ opcode: 0x8, payload: closePayload(1000) }));
      } else {
        await raw.closed;
        if (probe.closeCode > 0) expect(hostCloseCode(raw)).toBe(probe.closeCode);
      }
      await expectStillServing();
    });
  }

  it('survives half a frame and then a reset', async () => {
    const raw = await openRaw();
    raw.socket.write(frame({ opcode: 0x1, payload: Buffer.alloc(100, 0x61) }).subarray(0, 20));
    raw.socket.resetAndDestroy();
    await raw.closed;
    await expectStillServing();
  });

  it(`refuses window ${MAX_EVENT_CLIENTS + 1} with 503 TOO_MANY_WINDOWS and keeps the others`, async () => {
    const sockets: WebSocket[] = [];
    try {
      // The watcher holds one place already.
      for (let i = 1; i < MAX_EVENT_CLIENTS; i++) {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/events?token=${TOKEN}`);
        sockets.push(ws);
        await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
      }
      const raw = await connect();
      raw.socket.write(upgradeRequest());
      await raw.closed;
      expect(statusOf(raw)).toBe(503);
      expect(raw.received().toString()).toContain('TOO_MANY_WINDOWS');
    } finally {
      for (const ws of sockets) ws.terminate();
    }
    await expectStillServing();
  });
});

describe('broken handshakes and HTTP requests', () => {
  const probes: { name: string; bytes: () => string | Buffer; status: number }[] = [
    { name: 'an upgrade with WebSocket version 7', bytes: () => upgradeRequest({ 'Sec-WebSocket-Version': '7' }), status: 400 },
    { name: 'an upgrade without Sec-WebSocket-Key', bytes: () => upgradeRequest({ 'Sec-WebSocket-Key': null }), status: 400 },
    { name: 'an upgrade with a malformed key', bytes: () => upgradeRequest({ 'Sec-WebSocket-Key': 'short' }), status: 400 },
    { name: 'an upgrade to another path', bytes: () => upgradeRequest({}, `/other?token=${TOKEN}`), status: 404 },
    { name: 'an upgrade without the token', bytes: () => upgradeRequest({}, '/events'), status: 401 },
    { name: 'a TLS ClientHello on the plain port', bytes: () => Buffer.from('16030100a5010000a10303', 'hex'), status: 400 },
    { name: 'a header block over 16 KiB', bytes: () => `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, status: 431 },
    { name: 'a request line that is not HTTP', bytes: () => 'HELLO THERE\r\n\r\n', status: 400 },
    { name: 'an API path with a malformed %-escape', bytes: () => `POST /api/%E0%A4%A HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`, status: 400 },
  ];
  for (const probe of probes) {
    it(`answers ${probe.name} with ${probe.status}`, async () => {
      const raw = await connect();
      raw.socket.write(probe.bytes());
      await waitFor(raw, '\r\n\r\n');
      expect(statusOf(raw)).toBe(probe.status);
      raw.socket.destroy();
      await expectStillServing();
    });
  }

  it('survives an upgrade with a wrong token whose client resets before reading the refusal', async () => {
    for (let i = 0; i < 20; i++) {
      const raw = await connect();
      raw.socket.write(upgradeRequest({}, '/events?token=wrong-token-000000'));
      raw.socket.resetAndDestroy();
      await raw.closed;
    }
    await expectStillServing();
  });

  it('survives a POST whose body is cut off by a reset', async () => {
    const raw = await connect();
    raw.socket.write(`POST /api/library.list HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 1000\r\n\r\n{"a":`);
    await new Promise((r) => setImmediate(r));
    raw.socket.resetAndDestroy();
    await raw.closed;
    await expectStillServing();
  });

  it('survives a reader that resets in the middle of a file', async () => {
    for (let i = 0; i < 10; i++) {
      const raw = await connect();
      raw.socket.write(`GET /index.html HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      raw.socket.resetAndDestroy();
      await raw.closed;
    }
    await expectStillServing();
  });
});
