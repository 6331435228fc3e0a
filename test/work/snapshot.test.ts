// The one snapshot definition: counts from work_counts (kept by the work store) agree with the work rows,
// the reachable lists are exactly missing + stale (claimed ones included), and nothing is summed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Host } from '../../src-main/host/host';
import { ClaimStore } from '../../src-main/arbiter/claims';
import { VirtualClock } from '../../src-main/system/clock';
import { snapshot } from '../../src-main/work/snapshot';
import { loadCorpus } from '../../src-main/bench/load-corpus';
import { BENCH_HAVE } from '../../src-main/bench/snapshot-bench';
import { generateCorpus } from '../../src-shared/corpus/generate';
import { CATALOG } from '../../src-shared/catalog/operations';
import { channelSnapshot } from '../../src-shared/api/contract';
import { countKey, type WorkState } from '../../src-shared/states/states';

const hosts: Host[] = [];
afterEach(() => {
  for (const h of hosts.splice(0)) h.close();
});

function generatedHost(items = 600, channels = 7): Host {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-snap-'));
  const host = new Host({ databaseFile: path.join(dir, 'backlot.sqlite'), clock: new VirtualClock(0) });
  hosts.push(host);
  loadCorpus(host, generateCorpus({ seed: 7, channels, items, durationS: { min: 60, max: 10800 }, have: { ...BENCH_HAVE } }), 0);
  return host;
}

describe('snapshot', () => {
  it('reports every channel and every catalog operation with the six counts, matching the work rows', () => {
    const host = generatedHost();
    const snap = snapshot(host.db);
    expect(snap.channels.map((c) => c.id)).toEqual(host.library.channels().map((c) => c.id));
    const recount = host.db.prepare('SELECT channel_id, operation, state, COUNT(*) AS n FROM work GROUP BY 1, 2, 3').all() as
      { channel_id: string; operation: string; state: WorkState; n: number }[];
    const items = host.library.itemCounts();
    for (const ch of snap.channels) {
      expect(channelSnapshot.parse(ch)).toEqual(ch);
      expect(ch.items).toBe(items.get(ch.id));
      expect(Object.keys(ch.operations)).toEqual(CATALOG.map((o) => o.id));
      for (const [op, counts] of Object.entries(ch.operations)) {
        expect(Object.keys(counts).sort()).toEqual(['blocked', 'deferred', 'done', 'missing', 'missingInput', 'stale']);
        const expected = { done: 0, missing: 0, stale: 0, missingInput: 0, deferred: 0, blocked: 0 };
        for (const r of recount) if (r.channel_id === ch.id && r.operation === op) expected[countKey(r.state)] = r.n;
        expect(counts, `${ch.id} ${op}`).toEqual(expected);
      }
      // Sync is counted once, on the channel's own row.
      expect(ch.operations.sync).toEqual({ done: 1, missing: 0, stale: 0, missingInput: 0, deferred: 0, blocked: 0 });
    }
    expect(JSON.stringify(snap)).not.toMatch(/total/i);
  });

  it('lists the reachable work (missing + stale, newest first), claimed items included', () => {
    const host = generatedHost();
    const ch = host.library.channels()[0].id;
    const claimedRow = host.db.prepare("SELECT item_id FROM work WHERE channel_id = ? AND operation = 'transcribe' AND state = 'missing' LIMIT 1").get(ch) as { item_id: string };
    // Claimed as the arbiter claims: the claim row and the work row's flag, in one transaction.
    host.transaction(() => {
      new ClaimStore(host.db).tryClaim({ operation: 'transcribe', item_id: claimedRow.item_id, channel_id: ch, lane: 'gpu', slot: 0, node_id: null,
        run_id: null, trigger: 'arbiter', started_at: 0, expires_at: 60, reserved_bytes: 0, reserved_usd: 0 });
      host.work.markClaimed('transcribe', claimedRow.item_id);
    });
    const snap = snapshot(host.db, { ids: true });
    for (const c of snap.channels) {
      for (const [op, counts] of Object.entries(c.operations)) {
        const expected = host.db.prepare(`SELECT item_id FROM work WHERE channel_id = ? AND operation = ? AND state IN ('missing', 'stale')
                                           ORDER BY published_at DESC, item_id`).pluck().all(c.id, op);
        expect(counts.ids, `${c.id} ${op}`).toEqual(expected);
        expect(counts.ids!.length).toBe(counts.missing + counts.stale);
      }
    }
    expect(snap.channels[0].operations.transcribe.ids).toContain(claimedRow.item_id);
    expect(snapshot(host.db).channels[0].operations.transcribe.ids).toBeUndefined();
  });

  it('narrows to one channel, refuses an unknown one, and leaves removed channels out', () => {
    const host = generatedHost(100, 3);
    const [a, b] = host.library.channels();
    const one = snapshot(host.db, { channel: b.id, ids: true });
    expect(one.channels).toEqual([snapshot(host.db, { ids: true }).channels[1]]);
    expect(() => snapshot(host.db, { channel: 'nope' })).toThrow(expect.objectContaining({ code: 'CHANNEL_NOT_FOUND' }));
    host.db.prepare('UPDATE channels SET removed_at = 1 WHERE id = ?').run(a.id);
    expect(snapshot(host.db).channels.map((c) => c.id)).not.toContain(a.id);
    expect(() => snapshot(host.db, { channel: a.id })).toThrow(expect.objectContaining({ code: 'CHANNEL_NOT_FOUND' }));
  });

  it('follows state changes made through the library', () => {
    const host = generatedHost(50, 2);
    const ch = host.library.channels()[0].id;
    const item = host.library.itemsOfChannel(ch).find((i) => i.media_state === 'local')!;
    const before = snapshot(host.db, { channel: ch }).channels[0].operations.download;
    host.transaction(() => host.library.markMediaGone(item.id, 1));
    const after = snapshot(host.db, { channel: ch }).channels[0].operations.download;
    // A platform item whose media is gone (re-download off) is missing-input, not missing.
    expect(after).toEqual({ ...before, done: before.done - 1, missingInput: before.missingInput + 1 });
  });

  it('an empty library is an empty list', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-snap-'));
    const host = new Host({ databaseFile: path.join(dir, 'backlot.sqlite') });
    hosts.push(host);
    expect(snapshot(host.db, { ids: true })).toEqual({ channels: [] });
  });
});
