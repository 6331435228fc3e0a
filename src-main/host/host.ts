// The host process object: the database (its only writer), the library, the derived work table
// and the events the shells forward to windows. Electron main and the headless server both build
// exactly this and nothing else holds authority.
import { EventEmitter } from 'node:events';
import type { Statement } from 'better-sqlite3';
import { openDatabase, openedExclusively, type Db } from '../db/connection';
import { openSearchConnection } from '../db/search-connection';
import { UnitOfWork } from '../db/unit-of-work';
import { WalCheckpointer } from '../db/wal-checkpointer';
import { versionAtOpen } from '../db/migrate';
import { WorkStore } from '../work/work-store';
import { LibraryRepository } from '../library/repository';
import { wallClock, type Clock } from '../system/clock';
import { EventCoalescer } from './event-coalescer';
import { hostNotice, type HostEvent, type HostEventDetail } from '../../src-shared/api/contract';
import type { HostNotice } from '../../src-shared/notices/notice';
import { BacklotError } from '../../src-shared/errors';
import type { OperationId } from '../../src-shared/catalog/operations';

/** Notices kept for windows that open later (the newest last). */
const NOTICES_KEPT = 200;

export interface HostOptions {
  databaseFile: string;
  clock?: Clock;
  /** false for scratch databases (the simulator): skips fsync, keeps every other guarantee. */
  durable?: boolean;
  /** The operations whose work is derived (default: the catalog); the simulator names the design's seven. */
  operations?: readonly OperationId[];
  /** false in the simulator: the catalog's order-only waits (settlesAfter) are not derived (WorkStoreOptions). */
  settleOrder?: boolean;
  /** How many items' facts and rows the work store keeps between units (WorkStoreOptions). */
  itemCacheLimit?: number;
  /**
   * Checkpoint the log on a thread of its own (db/wal-checkpointer.ts): the dispatching host, whose
   * commits would otherwise stall its requests; a short command keeps SQLite's own checkpoints.
   */
  checkpointOffThread?: boolean;
}

export class Host {
  readonly db: Db;
  /** The one unit of work every write runs in (docs/architecture.md "Transactions"). */
  readonly uow: UnitOfWork;
  readonly work: WorkStore;
  readonly library: LibraryRepository;
  readonly clock: Clock;
  private readonly databaseFile: string;
  private searchConnection: Db | null = null;
  private readonly checkpointer: WalCheckpointer | null;
  private readonly events = new EventEmitter();
  private readonly coalescer = new EventCoalescer((event) => this.deliver(event));
  private readonly noticeLog: (HostNotice & { id: number })[] = [];
  private noticeSeq = 0;

  constructor(options: HostOptions) {
    this.clock = options.clock ?? wallClock;
    this.databaseFile = options.databaseFile;
    this.db = openDatabase(options.databaseFile, { durable: options.durable });
    this.checkpointer = options.checkpointOffThread === true
      ? WalCheckpointer.start(this.db, options.databaseFile, {
        onFallback: (reason) => process.stderr.write(`backlot: the host checkpoints its log itself again: ${reason}.\n`),
      })
      : null;
    this.uow = new UnitOfWork(this.db);
    this.work = new WorkStore(this.uow, {
      operations: options.operations,
      ...(options.settleOrder === undefined ? {} : { settleOrder: options.settleOrder }),
      ...(options.itemCacheLimit === undefined ? {} : { itemCacheLimit: options.itemCacheLimit }),
    });
    this.library = new LibraryRepository(this.db, this.work);
    this.backfillWork();
    this.backfillChannelWork();
  }

  /** A channel operation added after a library was made (channel-digest) gets its rows on first open. */
  private backfillChannelWork(): void {
    const missing = this.work.channelsMissingWork();
    if (missing.length === 0) return;
    const now = this.now();
    this.transaction(() => { for (const id of missing) this.work.ensureChannel(id, now); });
  }

  /** A library from before the work table (schema 1) gets its derived states once, on upgrade. */
  private backfillWork(): void {
    const from = versionAtOpen(this.db);
    if (from === 0 || from >= 2) return;
    const now = this.now();
    this.transaction(() => {
      for (const c of this.library.channels()) this.work.ensureChannel(c.id, now);
      for (const r of this.db.prepare('SELECT id FROM items').all() as { id: string }[]) this.work.ensureItem(r.id, now);
    });
  }

  /**
   * The connection searches read (src-main/db/search-connection.ts): read-only, opened on first use.
   * It sees what the writer has committed. A library in memory, or one held exclusively on a full
   * disk, has no second connection: the writer's own serves.
   */
  get searchDb(): Db {
    if (this.searchConnection === null) {
      this.searchConnection = this.databaseFile === ':memory:' || openedExclusively(this.db) ? this.db : openSearchConnection(this.databaseFile);
    }
    return this.searchConnection;
  }

  now(): number {
    return this.clock.now();
  }

  private versionStatements: { data: Statement; changes: Statement } | null = null;

  /**
   * Changes whenever the library file may have changed: this connection's writes (total_changes)
   * or another connection's commit (data_version). Readers that keep answers compare it.
   */
  libraryVersion(): string {
    this.versionStatements ??= {
      data: this.db.prepare('PRAGMA data_version').pluck(),
      changes: this.db.prepare('SELECT total_changes()').pluck(),
    };
    return `${this.versionStatements.data.get() as number}:${this.versionStatements.changes.get() as number}`;
  }

  /** Runs fn in one transaction; the derived state and the facts commit together or not at all. */
  transaction<T>(fn: () => T, options: { immediate?: boolean } = {}): T {
    return this.uow.run(fn, options);
  }

  /** Tells the windows; bursts of one kind are coalesced (event-coalescer.ts). */
  emit(event: HostEvent): void {
    this.coalescer.push(event);
  }

  private deliver(event: HostEvent): void {
    const detail: HostEventDetail = {};
    if (event === 'snapshot-changed') {
      // The channels whose counts this process moved since the last such event; none known means
      // the change came from elsewhere (another process), and windows re-read everything.
      const channels = this.work.takeChangedChannels();
      if (channels.length > 0) detail.channels = channels;
    }
    this.events.emit('host-event', event, detail);
  }

  /**
   * Tells a person something (DESIGN §5: the disk gate shut, a run failed, ...): every shell hears
   * it as a `notice` event and decides how to show it. A malformed notice is a bug in its emitter,
   * refused here rather than shown half-formed in a window or an OS notification.
   */
  notify(notice: HostNotice): void {
    const checked = hostNotice.safeParse(notice);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new BacklotError('INVALID_NOTICE', `A host notice is malformed at "${issue.path.join('.') || '(root)'}": ${issue.message}.`, { kind: notice?.kind });
    }
    this.noticeLog.push({ ...checked.data, id: ++this.noticeSeq });
    if (this.noticeLog.length > NOTICES_KEPT) this.noticeLog.splice(0, this.noticeLog.length - NOTICES_KEPT);
    this.emit({ event: 'notice', notice: checked.data });
  }

  /** Notices kept for a window that opens later: those after `afterId` (0: all kept), oldest first. */
  notices(afterId = 0): readonly (HostNotice & { id: number })[] {
    return this.noticeLog.filter((n) => n.id > afterId);
  }

  onEvent(listener: (event: HostEvent, detail: HostEventDetail) => void): () => void {
    this.events.on('host-event', listener);
    return () => this.events.off('host-event', listener);
  }

  /** The log's checkpoint thread, where this host runs one (tests read its answers). */
  get walCheckpointer(): WalCheckpointer | null {
    return this.checkpointer;
  }

  close(): void {
    this.checkpointer?.close();
    this.coalescer.close();
    this.events.removeAllListeners();
    if (this.searchConnection !== null && this.searchConnection !== this.db && this.searchConnection.open) this.searchConnection.close();
    if (this.db.open) this.db.close();
  }
}
