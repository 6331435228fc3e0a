// Pushes host events to every connected window over a WebSocket, the headless twin of the
// Electron shell's webContents.send. One event per frame, in the contract's wire form (hostEventFrame).
import { WebSocketServer, WebSocket } from 'ws';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { hostEventFrame, type HostEvent } from '../../../src-shared/api/contract';

export class EventHub {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 1024 });

  constructor() {
    // Windows only listen here; anything they send is ignored rather than trusted.
    this.wss.on('connection', (socket) => socket.on('message', () => undefined));
  }

  accept(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.wss.emit('connection', ws, req));
  }

  broadcast(event: HostEvent): void {
    const frame = JSON.stringify(hostEventFrame(event));
    for (const client of this.wss.clients) {
      if (client.readyState === WebSocket.OPEN) client.send(frame);
    }
  }

  get size(): number {
    return this.wss.clients.size;
  }

  close(): Promise<void> {
    for (const client of this.wss.clients) client.close(1001, 'Backlot is shutting down.');
    return new Promise((resolve) => this.wss.close(() => resolve()));
  }
}
