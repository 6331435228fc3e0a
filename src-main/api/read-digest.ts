// Reading committed digests back for the CLI and the API: an item's digest (the contract's answer
// shape) and a channel's roll-up of one period. Work that has no output yet is refused with its state
// and the one reason `explain` gives, never an empty answer.
import fs from 'node:fs';
import path from 'node:path';
import type { Host } from '../host/host';
import type { Arbiter } from '../arbiter/arbiter';
import { explain } from '../explain/explain';
import { BacklotError } from '../../src-shared/errors';
import { digestAnswer, digestRecord, type DigestAnswer } from '../../src-shared/digest/record';
import { channelDigestRecord, type ChannelDigestRecord } from '../../src-shared/digest/channel-record';
import { channelDigestDir } from '../engines/rollup/adapter';

function describeReason(r: { code: string; params: Record<string, unknown> }): string {
  return Object.keys(r.params).length > 0 ? `${r.code} ${JSON.stringify(r.params)}` : r.code;
}

function readJson(file: string, what: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new BacklotError('DIGEST_UNREADABLE', `The ${what} at ${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'not JSON'}).`, { file });
  }
}

export function itemDigest(host: Host, arbiter: Arbiter, itemId: string): DigestAnswer {
  if (!host.library.item(itemId)) throw new BacklotError('ITEM_NOT_FOUND', `There is no item "${itemId}" in the library.`, { item: itemId });
  const row = host.work.row('digest', itemId);
  if (!row?.output_path) {
    const x = explain(host, arbiter, itemId, 'digest', host.now());
    throw new BacklotError('DIGEST_NOT_READY', `Item "${itemId}" has no digest yet: its digest is ${x.state} (${describeReason(x.reason)}).`, { item: itemId, state: x.state, reason: x.reason });
  }
  const parsed = digestRecord.safeParse(readJson(row.output_path, 'digest'));
  if (!parsed.success) throw new BacklotError('DIGEST_UNREADABLE', `The digest of item "${itemId}" at ${row.output_path} is malformed.`, { item: itemId });
  return digestAnswer(parsed.data);
}

/** The roll-up of one period (a key such as 2025-W11), or the latest one made when none is named. */
export function channelDigest(host: Host, arbiter: Arbiter, dataDir: string, channelId: string, periodKey?: string): ChannelDigestRecord {
  if (!host.library.channel(channelId)) throw new BacklotError('CHANNEL_NOT_FOUND', `There is no channel "${channelId}" in the library.`, { channel: channelId });
  let file: string | null = null;
  if (periodKey !== undefined) {
    file = path.join(channelDigestDir(dataDir, channelId), `${periodKey}.json`);
    if (!fs.existsSync(file)) {
      const made = fs.existsSync(channelDigestDir(dataDir, channelId))
        ? fs.readdirSync(channelDigestDir(dataDir, channelId)).filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5)).sort() : [];
      throw new BacklotError('DIGEST_NOT_READY', `Channel "${channelId}" has no digest for ${periodKey}${made.length ? `; there are digests for ${made.join(', ')}` : ''}.`, { channel: channelId, period: periodKey, periods: made });
    }
  } else {
    file = host.work.row('channel-digest', channelId)?.output_path ?? null;
    if (!file) {
      const x = explain(host, arbiter, channelId, 'channel-digest', host.now());
      throw new BacklotError('DIGEST_NOT_READY', `Channel "${channelId}" has no digest yet: its channel digest is ${x.state} (${describeReason(x.reason)}).`, { channel: channelId, state: x.state, reason: x.reason });
    }
  }
  const parsed = channelDigestRecord.safeParse(readJson(file, 'channel digest'));
  if (!parsed.success) throw new BacklotError('DIGEST_UNREADABLE', `The channel digest at ${file} is malformed.`, { channel: channelId });
  return parsed.data;
}
