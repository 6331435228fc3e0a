// What a window reads to show the library, and what it re-reads when the host says something
// changed: only the channels an event names (`snapshot.get {channels}`), the channel list only
// when a channel appeared or went, and everything only when the host cannot say what changed.
// The window's store (src-renderer/src/stores/library.ts) and the load benchmark's simulated
// windows (src-main/bench/load-window.ts) both run this, so the benchmark measures the window.
import type { ApiMethod, ApiRequest, ApiResponse, ChannelSnapshotDto, ChannelSummary, HostEvent, HostEventDetail } from '../api/contract';
import { coalesced } from './coalesce';

export interface LibraryChannel {
  snapshot: ChannelSnapshotDto;
  summary: ChannelSummary | undefined;
}

export type ApiCall = <M extends ApiMethod>(method: M, payload: ApiRequest<M>) => Promise<ApiResponse<M>>;

export interface LibraryViewOptions {
  call: ApiCall;
  /** The channels as they are now, after every successful read. */
  onChannels: (channels: LibraryChannel[]) => void;
  /** A read failed; the channels shown stay as they were. */
  onError: (error: unknown) => void;
}

export interface LibraryView {
  /** Reads everything again (on open, on the user's retry). */
  refresh(): Promise<void>;
  /** Feeds one host event; returns the read it caused, if any. */
  onEvent(event: HostEvent, detail?: HostEventDetail): Promise<void> | undefined;
}

export function createLibraryView(options: LibraryViewOptions): LibraryView {
  let channels: LibraryChannel[] = [];
  let needAll = true;
  const changed = new Set<string>();

  async function readAll(): Promise<void> {
    const [list, snap] = await Promise.all([options.call('library.list', {}), options.call('snapshot.get', {})]);
    const summaries = new Map(list.channels.map((c) => [c.id, c]));
    channels = snap.channels.map((s) => ({ snapshot: s, summary: summaries.get(s.id) }));
  }

  /** Re-reads the named channels; false when the channel set itself changed (then read all). */
  async function readSome(ids: string[]): Promise<boolean> {
    const snap = await options.call('snapshot.get', { channels: ids });
    const fresh = new Map(snap.channels.map((s) => [s.id, s]));
    const known = new Set(channels.map((c) => c.snapshot.id));
    // A channel named but not answered was removed; one answered but unknown was added.
    if (ids.some((id) => !fresh.has(id) && known.has(id)) || snap.channels.some((s) => !known.has(s.id))) return false;
    channels = channels.map((c) => {
      const s = fresh.get(c.snapshot.id);
      return s ? { snapshot: s, summary: c.summary && { ...c.summary, items: s.items } } : c;
    });
    return true;
  }

  // One read in flight per window; events arriving meanwhile are gathered for the next one.
  const run = coalesced(async () => {
    try {
      if (!needAll && changed.size > 0) {
        const ids = [...changed];
        changed.clear();
        if (!(await readSome(ids))) needAll = true;
      }
      if (needAll) {
        needAll = false;
        changed.clear();
        await readAll();
      }
      options.onChannels(channels);
    } catch (e) {
      // What the failed read was to bring is unknown now: the next read brings everything.
      needAll = true;
      options.onError(e);
    }
  });

  return {
    refresh() {
      needAll = true;
      return run();
    },
    onEvent(event, detail) {
      if (event !== 'snapshot-changed') return undefined;
      if (detail?.channels) {
        if (detail.channels.length === 0) return undefined;
        for (const id of detail.channels) changed.add(id);
      } else {
        needAll = true;
      }
      return run();
    },
  };
}
