// The host thread's turns (docs/architecture.md "Turns: requests before background writes"): queued
// writes get one turn per pass of the event loop, in the order they asked, so a request that arrives
// while many are queued is answered between two of them, not after all of them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HostTurns } from '../../src-main/system/host-turns';

describe('the host thread turns', () => {
  it('are handed out in the order asked, each in a task of its own', async () => {
    const turns = new HostTurns();
    const order: string[] = [];
    const all = [1, 2, 3].map((i) => turns.next().then(() => {
      order.push(`turn ${i}`);
      // What the turn's holder schedules as a microtask still runs before the next turn.
      queueMicrotask(() => order.push(`after ${i}`));
    }));
    expect(turns.queued).toBe(3);
    await Promise.all(all);
    expect(order).toEqual(['turn 1', 'after 1', 'turn 2', 'after 2', 'turn 3', 'after 3']);
    expect(turns.queued).toBe(0);
  });

  it('let a request that arrives meanwhile be answered before the queued writes are all done', async () => {
    const turns = new HostTurns();
    let queuedWhenAnswered = -1;
    const server = http.createServer((_req, res) => {
      queuedWhenAnswered = turns.queued;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      // Many writes waiting at once, as units ending together are; the request is sent after them.
      const writes = Array.from({ length: 5000 }, () => turns.next());
      const answer = new Promise<string>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port, path: '/' }, (res) => {
          let body = '';
          res.on('data', (c) => { body += c; });
          res.on('end', () => resolve(body));
        }).on('error', reject);
      });
      expect(await answer).toBe('ok');
      await Promise.all(writes);
      // Answered between two turns, with writes still queued behind it.
      expect(queuedWhenAnswered).toBeGreaterThan(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
