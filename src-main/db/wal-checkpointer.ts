// Checkpoints the library's write-ahead log on a thread of its own (docs/architecture.md
// "Checkpoints off the host's thread"): SQLite's automatic checkpoint runs inside whichever commit
// crosses its threshold, on the host's thread, and its copying and fsyncs stall every request queued
// behind that commit for 10-20 ms.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { openedExclusively, type Db } from './connection';

/** SQLite's own threshold (pages), given back to the writer whenever the thread is not there. */
export const AUTO_CHECKPOINT_PAGES = 1000;
/**
 * The writer's threshold while the thread runs: a safety valve, never reached while the thread
 * keeps up (about 40 MB of log); if it stalls, the writer checkpoints as it always did.
 */
export const VALVE_CHECKPOINT_PAGES = 10_000;
/** How often the thread checkpoints; one with nothing new to copy costs it a read of the log's index. */
export const CHECKPOINT_EVERY_MS = 250;

/** One PASSIVE checkpoint's answer, as `PRAGMA wal_checkpoint` gives it. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

type ThreadMessage =
  | { t: 'ready' }
  | { t: 'checkpointed'; result: CheckpointResult }
  | { t: 'missed'; message: string }
  | { t: 'failed'; message: string };

// Plain JavaScript run with `new Worker(source, { eval: true })` (as the engine spawner's thread):
// the same text runs in the built app, in Electron's main process and under the tests, and the
// SQLite binding it loads is the one the host resolved.
const THREAD_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let db = null;
let statement = null;
let timer = null;
const post = (m) => parentPort.postMessage(m);
function checkpoint() {
  try {
    const row = statement.get();
    if (workerData.report) post({ t: 'checkpointed', result: { busy: row.busy, log: row.log, checkpointed: row.checkpointed } });
  } catch (e) {
    // A checkpoint that could not copy (a full disk, an I/O error) leaves the log as it was; the
    // next one tries again, and the writer meets the same condition on its own write.
    if (workerData.report) post({ t: 'missed', message: String(e && e.message || e) });
  }
}
try {
  db = new Database(workerData.file, { fileMustExist: true });
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 0');
  statement = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  timer = setInterval(checkpoint, workerData.everyMs);
  post({ t: 'ready' });
} catch (e) {
  post({ t: 'failed', message: String(e && e.message || e) });
}
parentPort.on('message', (m) => {
  if (m === 'checkpoint' && db) checkpoint();
  if (m === 'close') {
    if (timer) clearInterval(timer);
    if (db && db.open) db.close();
    parentPort.close();
  }
});
`;

export interface WalCheckpointerOptions {
  everyMs?: number;
  /** Told once when the thread cannot run (the writer checkpoints as SQLite does by default). */
  onFallback?: (reason: string) => void;
  /** Each checkpoint's answer (tests and diagnostics); without it the thread sends none. */
  onCheckpoint?: (result: CheckpointResult) => void;
  /** A checkpoint that failed (a full disk, an I/O error); the thread goes on. */
  onMissed?: (message: string) => void;
}

export class WalCheckpointer {
  private worker: Worker | null;
  private closed = false;
  private readonly ready: Promise<boolean>;

  private constructor(private readonly writer: Db, file: string, private readonly options: WalCheckpointerOptions) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    // Answers cross to the host's thread only for a listener: the host itself needs none of them.
    const report = options.onCheckpoint !== undefined || options.onMissed !== undefined;
    const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { file, driver, report, everyMs: options.everyMs ?? CHECKPOINT_EVERY_MS } });
    this.worker = worker;
    // The thread must not keep a process alive that has nothing else to do (a command that forgot close()).
    worker.unref();
    let settleReady: (ok: boolean) => void = () => undefined;
    this.ready = new Promise<boolean>((resolve) => { settleReady = resolve; });
    worker.on('message', (m: ThreadMessage) => {
      if (m.t === 'ready') {
        // Only now does the writer leave the checkpoints to the thread.
        if (!this.closed) this.writer.pragma(`wal_autocheckpoint = ${VALVE_CHECKPOINT_PAGES}`);
        settleReady(true);
      } else if (m.t === 'checkpointed') {
        this.options.onCheckpoint?.(m.result);
      } else if (m.t === 'missed') {
        this.options.onMissed?.(m.message);
      } else {
        this.fallBack(`the checkpoint thread failed: ${m.message}`);
        settleReady(false);
      }
    });
    worker.on('error', (e) => { this.fallBack(`the checkpoint thread stopped: ${e.message}`); settleReady(false); });
    worker.on('exit', () => {
      if (!this.closed) this.fallBack('the checkpoint thread ended');
      settleReady(false);
    });
  }

  /**
   * Starts the thread for a library file; null where no second connection can share it (as for the
   * search connection, Host.searchDb): a library in memory, or one held exclusively on a full disk.
   */
  static start(writer: Db, file: string, options: WalCheckpointerOptions = {}): WalCheckpointer | null {
    if (file === ':memory:' || openedExclusively(writer)) return null;
    return new WalCheckpointer(writer, file, options);
  }

  /** Resolves true once the thread holds its connection and the writer has handed it the checkpoints. */
  whenReady(): Promise<boolean> {
    return this.ready;
  }

  /** Asks for a checkpoint now (the next `onCheckpoint` answers it), besides the thread's own pace. */
  checkpointNow(): void {
    this.worker?.postMessage('checkpoint');
  }

  /** The writer's threshold back to SQLite's, then the thread's connection closed. */
  close(): void {
    this.handBack()?.postMessage('close');
  }

  private fallBack(reason: string): void {
    if (this.closed) return;
    void this.handBack()?.terminate();
    this.options.onFallback?.(reason);
  }

  /** Once: the writer checkpoints by itself again; returns the thread to let go of (null if none). */
  private handBack(): Worker | null {
    if (this.closed) return null;
    this.closed = true;
    if (this.writer.open) this.writer.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    const worker = this.worker;
    this.worker = null;
    return worker;
  }
}
