// The host side of acquisition for one data folder (docs/acquisition.md): the platform cooldowns
// and their gate, the download pacer, the daily caps, the disk's ENOSPC shortfall and the folder
// watcher. The dispatcher attaches one and hands it to its units: the sync and download adapters
// find it in their job's host services, the acquisition recorders in the settle's record context.
import path from 'node:path';
import type { Host } from '../host/host';
import type { SettingsValues } from '../../src-shared/settings/settings-schema';
import type { DiskProbe } from './disk-gate';
import type { LaneGate } from './chain';
import { CooldownStore, networkCooldownGate, type Cooldown } from './network-cooldown';
import { DownloadPacer } from './download-pacer';
import { spendWindowStart } from '../runs/history';
import { FolderWatcher } from '../library/folder-watcher';

interface RefreshableProbe extends DiskProbe {
  refresh(): Promise<number | null>;
}

/**
 * The disk gate's view of free space, corrected after an ENOSPC: the volume just proved it cannot
 * hold that download, so the gate stays shut (free space reads as none) until free space grows
 * past what it was after the partial file was removed by at least what the download had written.
 */
export class ShortfallProbe implements DiskProbe {
  private floor: number | null = null;
  private need = 0;
  private pending = false;

  constructor(private readonly inner: RefreshableProbe) {}

  freeBytes(): number | null {
    const raw = this.inner.freeBytes();
    if (this.floor === null && !this.pending) return raw;
    if (!this.pending && raw !== null && raw >= this.floor! + this.need) {
      this.floor = null;
      return raw;
    }
    return -1;
  }

  /** A download met ENOSPC after writing `writtenBytes`: read the volume again and shut. */
  async noteEnospc(writtenBytes: number): Promise<number | null> {
    this.pending = true;
    this.need = Math.max(1, writtenBytes);
    try {
      const free = await this.inner.refresh();
      this.floor = free ?? 0;
      return free;
    } finally {
      this.pending = false;
    }
  }

  /**
   * The shortfall guards against refilling the disk with sizes nobody knows; a download whose size
   * was announced can be checked against the space really free (issue 23 item 12).
   */
  announcedRoom(): number | null {
    if (this.floor === null || this.pending) return null;
    return this.inner.freeBytes();
  }

  shortfall(): { floorBytes: number; needBytes: number } | null {
    return this.floor === null && !this.pending ? null : { floorBytes: this.floor ?? 0, needBytes: this.need };
  }
}

export class Acquisition {
  readonly cooldowns: CooldownStore;
  readonly pacer: DownloadPacer;
  readonly diskProbe: ShortfallProbe;
  readonly watcher: FolderWatcher;
  private readonly q;
  private unsubscribe: (() => void) | null = null;
  constructor(readonly host: Host, readonly dataDir: string, private readonly settings: () => SettingsValues, disk: RefreshableProbe, private readonly wake: () => void) {
    this.cooldowns = new CooldownStore(host.db);
    this.pacer = new DownloadPacer(() => {
      const s = this.settings();
      return { perHost: s['politeness.perHostConcurrency'], minIntervalS: s['politeness.minIntervalS'], jitter: s['politeness.jitter'] };
    });
    this.diskProbe = new ShortfallProbe(disk);
    this.watcher = new FolderWatcher({
      changed: (channelId) => {
        try {
          this.host.transaction(() => this.host.library.requestSync(channelId, this.host.now()));
          this.wake();
        } catch {
          // The library closed under a late event: nothing to wake.
        }
      },
      debounceMs: () => this.settings()['folders.watchDebounceMs'],
    });
    this.q = {
      ledger: host.db.prepare('SELECT COUNT(*) AS items, COALESCE(SUM(bytes), 0) AS bytes FROM download_ledger WHERE platform = ? AND t >= ?'),
      addLedger: host.db.prepare('INSERT INTO download_ledger (platform, t, bytes, item_id) VALUES (?, ?, ?, ?)'),
      pruneLedger: host.db.prepare('DELETE FROM download_ledger WHERE t < ?'),
      validators: host.db.prepare('SELECT etag, last_modified AS lastModified FROM channel_sync_state WHERE channel_id = ?'),
      known: host.db.prepare('SELECT external_id FROM items WHERE channel_id = ? ORDER BY published_at DESC').pluck(),
      expected: host.db.prepare('SELECT enclosure_length FROM items WHERE id = ?').pluck(),
    };
  }

  gates(): LaneGate[] {
    return [networkCooldownGate(this.cooldowns)];
  }

  /** Folder watching, from the dispatcher's start: every library change reconciles the watched set. */
  startWatching(): void {
    this.watcher.reconcile(this.host.library.channels());
    this.unsubscribe = this.host.onEvent((e) => {
      if (e === 'snapshot-changed' && this.host.db.open) this.watcher.reconcile(this.host.library.channels());
    });
  }

  /** What the disk gate reserves for a download: the size its source announced, else the duration estimate. */
  expectedBytes(itemId: string, estimate: number): number {
    const announced = this.q.expected.get(itemId) as number | null | undefined;
    return typeof announced === 'number' && announced > 0 ? announced : estimate;
  }

  validators(channelId: string): { etag: string | null; lastModified: string | null } {
    return (this.q.validators.get(channelId) as { etag: string | null; lastModified: string | null } | undefined) ?? { etag: null, lastModified: null };
  }

  knownExternalIds(channelId: string): string[] {
    return this.q.known.all(channelId) as string[];
  }

  settingsNow(): SettingsValues {
    return this.settings();
  }

  /** Inside a failure's transaction: the platform refused; open or lengthen its cooldown and tell the user. */
  refused(platform: string, code: string, retryAfterS: number | null, now: number): Cooldown {
    const s = this.settings();
    const c = this.cooldowns.refuse(platform, code, retryAfterS, { baseS: s['politeness.cooldownBaseS'], maxS: s['politeness.cooldownMaxS'] }, now);
    this.host.notify({ kind: 'cooldown-opened', at: now, code: 'NETWORK_COOLDOWN', params: { platform, until: c.until, refusals: c.level, cause: code, ...(retryAfterS !== null ? { retryAfterS } : {}) }, target: { view: 'lanes', lane: 'download' } });
    return c;
  }

  /** Inside a download's commit: count it against the platform's daily cap; a success ends a refusal streak. */
  downloaded(platform: string, bytes: number, itemId: string, now: number): void {
    this.q.addLedger.run(platform, now, bytes, itemId);
    this.q.pruneLedger.run(now - 8 * 86400);
    this.cooldowns.succeeded(platform);
  }

  /** The daily cap of a platform or host, when today's downloads reached it: until the next UTC day. */
  capReached(platform: string, now: number): { until: number; items: number; bytes: number; capItems: number | null; capBytes: number | null } | null {
    const cap = this.settings()['politeness.dailyCaps'][platform];
    if (!cap || (cap.items === undefined && cap.bytes === undefined)) return null;
    const dayStart = spendWindowStart(now, 'day');
    const used = this.q.ledger.get(platform, dayStart) as { items: number; bytes: number };
    const reached = (cap.items !== undefined && used.items >= cap.items) || (cap.bytes !== undefined && used.bytes >= cap.bytes);
    return reached ? { until: dayStart + 86400, items: used.items, bytes: used.bytes, capItems: cap.items ?? null, capBytes: cap.bytes ?? null } : null;
  }

  /** Inside a failure's transaction: a download met a full disk; the gate shuts and the user is told once per shortfall. */
  diskFull(itemId: string, writtenBytes: number, now: number): void {
    const already = this.diskProbe.shortfall() !== null;
    void this.diskProbe.noteEnospc(writtenBytes).then(() => this.wake(), () => this.wake());
    if (!already) {
      this.host.notify({ kind: 'disk-gate-shut', at: now, code: 'DISK_GATE', params: { mode: 'shut', reason: 'ENOSPC', item: itemId, path: path.join(this.dataDir, 'media') }, target: { view: 'lanes', lane: 'download' } });
    }
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.watcher.close();
  }
}

/** The dispatcher's one call: the acquisition state for its data folder, handed to its units (units/unit-context.ts). */
export function attachAcquisition(host: Host, dataDir: string, settings: () => SettingsValues, disk: RefreshableProbe, wake: () => void): Acquisition {
  return new Acquisition(host, path.resolve(dataDir), settings, disk, wake);
}

export async function detachAcquisition(a: Acquisition): Promise<void> {
  await a.close();
}
