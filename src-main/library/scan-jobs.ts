// The folder scan's job record (table scan_jobs, one row per channel): which pass it is on, how
// far that pass got, and who holds the lease on it. A killed scan leaves its cursor behind for the
// next one; a second live scanner of the same channel is refused.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Db } from '../db/connection';
import { BacklotError } from '../../src-shared/errors';
import type { Position } from './folder-walk';
import { holderAlive, ownStartTime } from '../system/process-alive';

export interface ScanJobRow {
  channel_id: string;
  settings_fingerprint: string;
  generation: number;
  cursor: string | null;
  status: 'running' | 'finished';
  lease_owner: string | null;
  lease_expires_at: number | null;
  started_at: number;
  finished_at: number | null;
}

export interface BegunScan {
  generation: number;
  cursor: Position | null;
  /** Continued an unfinished pass from its cursor. */
  resumed: boolean;
  /** An unfinished pass was thrown away because the folder's settings changed. */
  restarted: boolean;
}

/**
 * `host/pid/random/start`: the pid and its process's start time let a scanner on the same machine
 * see that a holder died, even when its pid is a zombie or belongs to another process by now.
 */
export function newLeaseOwner(): string {
  return `${os.hostname()}/${process.pid}/${randomBytes(4).toString('hex')}/${ownStartTime() ?? ''}`;
}

/** A lease counts until it expires, unless its holder is a process on this machine that is gone. */
export function leaseIsLive(row: Pick<ScanJobRow, 'lease_owner' | 'lease_expires_at'>, now: number): boolean {
  if (!row.lease_owner || row.lease_expires_at === null || row.lease_expires_at <= now) return false;
  const [host, pid, , start] = row.lease_owner.split('/');
  if (host === os.hostname() && Number.isInteger(Number(pid)) && !holderAlive(Number(pid), start ? start : null)) return false;
  return true;
}

export function parseCursor(cursor: string | null): Position | null {
  if (cursor === null) return null;
  try {
    const v = JSON.parse(cursor) as unknown;
    return Array.isArray(v) && v.every((s) => typeof s === 'string') ? v : null;
  } catch {
    return null;
  }
}

export class ScanJobs {
  private readonly q;

  constructor(private readonly db: Db) {
    this.q = {
      get: db.prepare('SELECT * FROM scan_jobs WHERE channel_id = ?'),
      insert: db.prepare(`INSERT INTO scan_jobs (channel_id, settings_fingerprint, generation, cursor, status, lease_owner, lease_expires_at, started_at, finished_at)
                          VALUES (?, ?, ?, NULL, 'running', ?, ?, ?, NULL)`),
      newPass: db.prepare(`UPDATE scan_jobs SET settings_fingerprint = ?, generation = ?, cursor = NULL, status = 'running',
                             lease_owner = ?, lease_expires_at = ?, started_at = ?, finished_at = NULL WHERE channel_id = ?`),
      lease: db.prepare('UPDATE scan_jobs SET lease_owner = ?, lease_expires_at = ? WHERE channel_id = ?'),
      cursor: db.prepare('UPDATE scan_jobs SET cursor = ?, lease_expires_at = ? WHERE channel_id = ? AND lease_owner = ?'),
      finish: db.prepare(`UPDATE scan_jobs SET status = 'finished', cursor = NULL, finished_at = ?, lease_owner = NULL, lease_expires_at = NULL
                            WHERE channel_id = ? AND lease_owner = ?`),
      release: db.prepare('UPDATE scan_jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE channel_id = ? AND lease_owner = ?'),
      dropSeenBefore: db.prepare('DELETE FROM scan_seen WHERE channel_id = ? AND generation < ?'),
      dropSeen: db.prepare('DELETE FROM scan_seen WHERE channel_id = ?'),
      seen: db.prepare('INSERT OR IGNORE INTO scan_seen (channel_id, generation, external_id) VALUES (?, ?, ?)'),
      seenUnder: db.prepare(`INSERT OR IGNORE INTO scan_seen (channel_id, generation, external_id)
                               SELECT channel_id, ?, external_id FROM items WHERE channel_id = ? AND substr(external_id, 1, ?) = ?`),
      unseen: db.prepare(`SELECT i.id FROM items i WHERE i.channel_id = ? AND i.media_state <> 'gone'
                            AND NOT EXISTS (SELECT 1 FROM scan_seen s WHERE s.channel_id = i.channel_id AND s.generation = ? AND s.external_id = i.external_id)`),
    };
  }

  get(channelId: string): ScanJobRow | undefined {
    return this.q.get.get(channelId) as ScanJobRow | undefined;
  }

  /**
   * Takes the lease and decides the pass: resume an unfinished one with the same settings, or
   * start a new one (first scan, last pass finished, or settings changed). IMMEDIATE, so two
   * scanners racing for the same channel cannot both win.
   */
  begin(channelId: string, settingsFingerprint: string, owner: string, now: number, leaseS: number): BegunScan {
    return this.db.transaction((): BegunScan => {
      const row = this.get(channelId);
      const expires = now + leaseS;
      if (!row) {
        this.q.insert.run(channelId, settingsFingerprint, 1, owner, expires, now);
        return { generation: 1, cursor: null, resumed: false, restarted: false };
      }
      if (row.lease_owner !== owner && leaseIsLive(row, now)) {
        throw new BacklotError('SCAN_IN_PROGRESS', `Channel "${channelId}" is already being scanned (by ${row.lease_owner}); try again when that scan ends.`,
          { channel: channelId, owner: row.lease_owner });
      }
      if (row.status === 'running' && row.settings_fingerprint === settingsFingerprint) {
        this.q.lease.run(owner, expires, channelId);
        const cursor = parseCursor(row.cursor);
        return { generation: row.generation, cursor, resumed: cursor !== null, restarted: false };
      }
      const restarted = row.status === 'running';
      const generation = row.generation + 1;
      this.q.newPass.run(settingsFingerprint, generation, owner, expires, now, channelId);
      this.q.dropSeenBefore.run(channelId, generation);
      return { generation, cursor: null, resumed: false, restarted };
    }).immediate();
  }

  /** Inside the page's transaction: refuses when the lease was lost, else records the position and renews. */
  checkpoint(channelId: string, owner: string, cursor: Position, now: number, leaseS: number): void {
    const r = this.q.cursor.run(JSON.stringify(cursor), now + leaseS, channelId, owner);
    if (r.changes !== 1) {
      throw new BacklotError('SCAN_LEASE_LOST', `The scan of channel "${channelId}" lost its lease to another scanner and stopped; its work so far is kept.`, { channel: channelId });
    }
  }

  markSeen(channelId: string, generation: number, externalId: string): void {
    this.q.seen.run(channelId, generation, externalId);
  }

  /** Everything under an unreadable folder counts as seen: an I/O error is not a deletion. */
  markSeenUnder(channelId: string, generation: number, prefix: string): void {
    const p = `${prefix}/`;
    this.q.seenUnder.run(generation, channelId, p.length, p);
  }

  unseenItemIds(channelId: string, generation: number): string[] {
    return (this.q.unseen.all(channelId, generation) as { id: string }[]).map((r) => r.id);
  }

  finish(channelId: string, owner: string, now: number): void {
    const r = this.q.finish.run(now, channelId, owner);
    if (r.changes !== 1) {
      throw new BacklotError('SCAN_LEASE_LOST', `The scan of channel "${channelId}" lost its lease to another scanner before it could finish; nothing was marked removed.`, { channel: channelId });
    }
    this.q.dropSeen.run(channelId);
  }

  /**
   * A whole pass applied at once, inside the caller's transaction (the folder-scan engine's settle,
   * library/folder-scan-pass.ts): recorded as a finished pass of its own, any unfinished paged pass
   * superseded with its seen marks. Refused while another scanner holds a live lease.
   */
  passApplied(channelId: string, settingsFingerprint: string, now: number): void {
    const row = this.get(channelId);
    if (row && row.lease_owner !== null && leaseIsLive(row, now)) {
      throw new BacklotError('SCAN_IN_PROGRESS', `Channel "${channelId}" is already being scanned (by ${row.lease_owner}); try again when that scan ends.`,
        { channel: channelId, owner: row.lease_owner });
    }
    const owner = `settle/${process.pid}`;
    if (!row) this.q.insert.run(channelId, settingsFingerprint, 1, owner, now, now);
    else this.q.newPass.run(settingsFingerprint, row.generation + 1, owner, now, now, channelId);
    this.finish(channelId, owner, now);
  }

  release(channelId: string, owner: string): void {
    this.q.release.run(channelId, owner);
  }
}
