// Wakes a folder channel's sync when files appear, change or go (issue 10 "Folder sync"): chokidar
// watches each folder channel's root, a burst of events is debounced per channel, and the only
// thing the watcher does is ask for a sync; the scan stays the truth about what is there.
import { watch, type FSWatcher } from 'chokidar';
import path from 'node:path';
import { folderSettingsOf } from './folder-settings';
import type { ChannelRecord } from './repository';

export interface FolderWatcherOptions {
  /** The channel's folder changed: make its sync due now. */
  changed(channelId: string): void;
  debounceMs(): number;
  onError?(channelId: string, error: unknown): void;
}

export class FolderWatcher {
  private readonly watchers = new Map<string, { source: string; settings: string; watcher: FSWatcher; ready: Promise<void> }>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly options: FolderWatcherOptions) {}

  /** Watches exactly these folder channels (added ones start, removed ones stop). */
  reconcile(channels: readonly ChannelRecord[]): void {
    if (this.closed) return;
    const wanted = new Map(channels.filter((c) => c.kind === 'folder' && c.removed_at === null).map((c) => [c.id, c]));
    for (const [id, w] of this.watchers) {
      const c = wanted.get(id);
      if (!c || c.source !== w.source || c.settings_json !== w.settings) this.unwatch(id);
    }
    for (const [id, c] of wanted) if (!this.watchers.has(id)) this.watchChannel(c);
  }

  /** Resolves once the channel's watcher has read its tree and reports changes (tests, diagnostics). */
  ready(channelId: string): Promise<void> | undefined {
    return this.watchers.get(channelId)?.ready;
  }

  watched(): string[] {
    return [...this.watchers.keys()];
  }

  private watchChannel(c: ChannelRecord): void {
    const settings = folderSettingsOf(c.settings_json);
    const watcher = watch(c.source, {
      ignoreInitial: true,
      persistent: true,
      followSymlinks: false,
      ...(settings.recursive ? {} : { depth: 0 }),
      ignored: (p: string) => !settings.includeHidden && path.relative(c.source, p).split(path.sep).some((s) => s.startsWith('.') && s.length > 1),
    });
    const poke = () => this.schedule(c.id);
    watcher.on('add', poke).on('change', poke).on('unlink', poke).on('addDir', poke).on('unlinkDir', poke);
    watcher.on('error', (e) => this.options.onError?.(c.id, e));
    const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
    this.watchers.set(c.id, { source: c.source, settings: c.settings_json, watcher, ready });
  }

  private schedule(channelId: string): void {
    const old = this.timers.get(channelId);
    if (old) clearTimeout(old);
    const t = setTimeout(() => {
      this.timers.delete(channelId);
      if (!this.closed) this.options.changed(channelId);
    }, this.options.debounceMs());
    t.unref();
    this.timers.set(channelId, t);
  }

  private unwatch(id: string): void {
    const w = this.watchers.get(id);
    this.watchers.delete(id);
    void w?.watcher.close();
    const t = this.timers.get(id);
    if (t) clearTimeout(t);
    this.timers.delete(id);
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.watchers.values()];
    this.watchers.clear();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await Promise.all(all.map((w) => w.watcher.close()));
  }
}
