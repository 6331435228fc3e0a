// Pushes host events to every connected window over a WebSocket, the headless twin of the
// Electron shell's webContents.send. One event per frame, in the contract's wire form
// (hostEventFrame). Whatever a client sends, malformed or hostile, ends at most that client's
// connection: every socket here has an error listener (docs/reliability.md).
import { WebSocketServer, WebSocket } from 'ws';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { hostEventFrame, type HostEvent, type HostEventDetail } from '../../../src-shared/api/contract';

/** Windows send nothing; a frame larger than this is a protocol error (ws closes with 1009). */
const MAX_PAYLOAD_BYTES = 1024;
/** A window that does not read its events is dropped once this much waits for it. */
const MAX_BUFFERED_BYTES = 1024 * 1024;
/** More open windows than this on one host is a leak or an attack, not a user. */
export const MAX_EVENT_CLIENTS = 64;
const HEARTBEAT_MS = 30_000;

export interface EventHubOptions {
  /** Hears each client's socket error (a malformed frame, a reset); the hub has already dropped it. */
  onClientError?: (error: Error) => void;
}

export class EventHub {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD_BYTES, clientTracking: true });
  private readonly alive = new WeakSet<WebSocket>();
  private readonly heartbeat: NodeJS.Timeout;
  /** Client connections ended by their own error, for the host's diagnostics and the tests. */
  clientErrors = 0;

  constructor(private readonly options: EventHubOptions = {}) {
    this.wss.on('error', (e) => this.clientError(e));
    this.wss.on('wsClientError', (e, socket) => {
      // A handshake ws refuses (bad key, bad version): answer it and end that socket only.
      this.clientError(e);
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      else socket.destroy();
    });
    this.wss.on('connection', (socket: WebSocket) => {
      this.alive.add(socket);
      // ws reports an invalid frame (too large, bad UTF-8, unmasked, reserved opcode or bits) as
      // an 'error' on the socket after it has sent the close frame; without this listener the
      // error would end the process.
      socket.on('error', (e) => {
        this.clientError(e);
        socket.terminate();
      });
      socket.on('pong', () => this.alive.add(socket));
      // Windows only listen here; anything they send is ignored rather than trusted.
      socket.on('message', () => undefined);
    });
    // A window whose machine slept or whose network vanished never sends a close: ping, and
    // drop those that did not answer the last ping.
    this.heartbeat = setInterval(() => {
      for (const client of this.wss.clients) {
        if (!this.alive.has(client)) {
          client.terminate();
          continue;
        }
        this.alive.delete(client);
        client.ping();
      }
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  private clientError(e: Error): void {
    this.clientErrors++;
    this.options.onClientError?.(e);
  }

  /** Whether another window may connect now. */
  get hasRoom(): boolean {
    return this.wss.clients.size < MAX_EVENT_CLIENTS;
  }

  accept(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.wss.emit('connection', ws, req));
  }

  broadcast(event: HostEvent, detail?: HostEventDetail): void {
    const frame = JSON.stringify(hostEventFrame(event, detail));
    for (const client of this.wss.clients) {
      if (client.readyState !== WebSocket.OPEN) continue;
      if (client.bufferedAmount > MAX_BUFFERED_BYTES) {
        client.terminate();
        continue;
      }
      client.send(frame, (e) => { if (e) client.terminate(); });
    }
  }

  get size(): number {
    return this.wss.clients.size;
  }

  close(): Promise<void> {
    clearInterval(this.heartbeat);
    for (const client of this.wss.clients) client.close(1001, 'Backlot is shutting down.');
    return new Promise((resolve) => this.wss.close(() => resolve()));
  }
}
