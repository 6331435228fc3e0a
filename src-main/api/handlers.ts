// The host's implementation of the API contract. Each handler is a thin adapter from a validated
// request to the host's own modules; the shells never reach past this object.
import path from 'node:path';
import type { ApiHandlers, ChannelSummary } from '../../src-shared/api/contract';
import type { Host } from '../host/host';
import type { ChannelRecord } from '../library/repository';
import { snapshot } from '../work/snapshot';
import { addSource } from '../library/add-source';
import { feedNotes } from '../library/apply-listing';
import { scanFolders } from '../library/folder-scan';
import { explain } from '../explain/explain';
import { RunHistory } from '../runs/history';
import { Dispatcher } from '../dispatch/dispatcher';
import { laneStatuses, setLanePaused } from '../dispatch/lane-status';
import { retryWork } from '../work/retry';
import { requireSettingKey, SettingsStore } from '../settings/settings-store';
import { ytDlpLister } from '../engines/yt-dlp-listing/probe';
import { resourcesDir } from '../engines/resources';
import { redactUrl } from '../library/net/url-policy';
import { spendReport } from '../runs/spend-report';
import { itemDigest } from '../api/read-digest';
import { BacklotError } from '../../src-shared/errors';
import { searchTranscripts } from '../transcripts/search';
import { exportItemTranscript, transcriptViewOf } from './transcript-view';
import { createWindowHandlers, type WindowHandlerOptions } from './window-handlers';
import { createSpeakerHandlers } from './speakers-handlers';
import { createModelHandlers } from './models-handlers';
import { createPoolHandlers } from './pools-handlers';
import { PoolStore } from '../pools/pool-store';
import { MediaTickets } from './media-tickets';

export function createHandlers(host: Host, dispatcher?: Dispatcher, options: WindowHandlerOptions = {}): ApiHandlers {
  // A host opened without a dispatcher (tests, a reader) still answers explain and lanes from the
  // database through an arbiter that never dispatches.
  const d = dispatcher ?? new Dispatcher(host, { dataDir: path.dirname(host.db.name), profile: 'production' });
  const arbiter = () => d.prepare();
  // One history for every call: its statements are prepared once, not on each of the window's reads.
  const history = new RunHistory(host.db);
  // The declared pool lanes may be paused even before a runtime reports them (docs/pools.md).
  const pools = new PoolStore(host.db);
  // The item counts are read once per answer (one small read of work_counts), never per channel.
  const summary = (c: ChannelRecord, counts: ReadonlyMap<string, number>, notes = feedNotes(host)): ChannelSummary => ({
    id: c.id, kind: c.kind, platform: c.platform, title: c.title, source: c.kind === 'folder' ? c.source : redactUrl(c.source),
    items: counts.get(c.id) ?? 0, ...(notes.has(c.id) ? { feedNote: notes.get(c.id) } : {}),
  });
  const libraryChanged = async () => {
    (await arbiter()).libraryChanged();
    d.wake();
    host.emit('snapshot-changed');
  };

  // One media door for the item page and the speakers' samples: the same tickets, the same URLs.
  const media = options.media ?? { tickets: new MediaTickets(host), url: (t: string) => `/media/${t}` };
  const channelSummary = (id: string) => summary(host.library.channel(id)!, host.library.itemCounts());
  // Installs run in this host; a window that opens later reads where they stand (docs/window.md "Models").
  const modelHandlers = createModelHandlers(host, d.settings);

  return {
    ...createWindowHandlers(host, d, channelSummary, libraryChanged, { ...options, media }),
    ...createSpeakerHandlers(host, media),
    ...modelHandlers,
    ...createPoolHandlers(host, path.dirname(host.db.name), () => d.poolsOpen),

    'library.list': () => {
      const counts = host.library.itemCounts();
      const notes = feedNotes(host);
      return { channels: host.library.channels().map((c) => summary(c, counts, notes)) };
    },

    'library.add': async ({ source, title }) => {
      const settings = new SettingsStore(host.db).values();
      const { channel } = await addSource(host, source, { title, lister: ytDlpLister({ resourcesDir: resourcesDir(), settings }), maxBytes: settings['feeds.maxBytes'] });
      await libraryChanged();
      return { channel: summary(host.library.channel(channel.id) ?? channel, host.library.itemCounts()) };
    },

    'library.scan': async ({ channel }) => {
      const results = await scanFolders(host, { channel });
      await libraryChanged();
      return { scanned: results.map((r) => ({ channel: r.channel, added: r.added, changed: r.changed, removed: r.removed, unreadable: r.unreadable })) };
    },

    // snapshot() itself refuses an unknown channel with a BacklotError the dispatcher passes on.
    'snapshot.get': ({ channel, channels, ids }) => {
      // The reachable lists of the whole library are a bulk export (117,000 ids, over 1 MB at
      // 78,000 items) that would hold every other window's request behind it; the API gives them
      // one channel at a time (the CLI's `snapshot --ids` gives them all).
      if (ids && channel === undefined) {
        throw new BacklotError('INVALID_REQUEST', 'The reachable lists (ids) come one channel at a time; add "channel".');
      }
      return snapshot(host.db, { channel, channels, ids }, host.uow);
    },

    'explain.get': async ({ item, operation }) => explain(host, await arbiter(), item, operation, host.now()),

    'lanes.list': async () => ({ lanes: laneStatuses(await arbiter(), host.now()) }),

    'lanes.pause': async ({ lane }) => {
      const a = await arbiter();
      setLanePaused(a, lane, true, host.now(), 'api', pools.laneNames());
      host.emit('lanes-changed');
      return { lanes: laneStatuses(a, host.now()) };
    },

    'lanes.resume': async ({ lane }) => {
      const a = await arbiter();
      setLanePaused(a, lane, false, host.now(), 'api', pools.laneNames());
      d.wake();
      host.emit('lanes-changed');
      return { lanes: laneStatuses(a, host.now()) };
    },

    'runs.runNow': async ({ operation, channel }) => {
      await arbiter();
      const unit = d.startRequested('runNow', operation, channel, 'api');
      return { run: unit.runId, item: unit.itemId, lane: unit.lane };
    },

    'runs.doNext': async ({ operation, item }) => {
      await arbiter();
      const unit = d.startRequested('doNext', operation, item, 'api');
      return { run: unit.runId, item: unit.itemId, lane: unit.lane };
    },

    'runs.lastPerJob': () => ({ jobs: history.lastRunsPerJob(3) }),

    'runs.logs': ({ run, level, text, limit }) => ({ lines: history.logs({ runId: run, level, text, limit }) }),

    'work.retry': (target) => {
      const retried = retryWork(host.uow, host.work, target, host.now());
      if (retried > 0) {
        d.wake();
        host.emit('snapshot-changed');
      }
      return { retried };
    },

    'settings.list': () => ({ settings: d.settings.all() }),

    'settings.set': ({ key, value, restartAcknowledged }) => {
      requireSettingKey(key);
      const r = d.settings.set(key, value, { restartAcknowledged });
      return { key: r.key, value: r.value, applies: r.applies, restartPending: r.restartPending };
    },

    'tree.get': async () => {
      const a = await arbiter();
      return a.treeStore.currentOrDefault(a.laneKeys(), host.now());
    },

    // A tree that does not validate is refused with the node named; the stored tree is untouched.
    'tree.set': async ({ tree }) => {
      const a = await arbiter();
      const now = host.now();
      host.transaction(() => a.setTree(tree, now));
      d.wake();
      host.emit('lanes-changed');
      return a.treeStore.currentOrDefault(a.laneKeys(), now);
    },

    'notices.list': ({ after }) => ({ notices: [...host.notices(after ?? 0)] }),

    'spend.get': () => spendReport(host.db, host.now(), d.settings.get('spend.capUsd'), d.settings.get('spend.window')),

    'digest.get': async ({ item }) => itemDigest(host, await arbiter(), item),

    'search.query': ({ query, speaker, channel, limit }) => ({ hits: searchTranscripts(host.searchDb, query, { speaker, channel, limit }) }),

    'transcript.get': async ({ item }) => transcriptViewOf(host, await arbiter(), item),

    'transcript.export': async ({ item, format }) => {
      const r = await exportItemTranscript(host, await arbiter(), d.settings.values(), item, format);
      return typeof r.data === 'string'
        ? { fileName: r.fileName, mimeType: r.mimeType, encoding: 'utf8' as const, data: r.data }
        : { fileName: r.fileName, mimeType: r.mimeType, encoding: 'base64' as const, data: r.data.toString('base64') };
    },

    'runs.list': ({ limit, operation, channel, outcome, trigger, before }) => ({ runs: history.listRuns({ limit, operation, channel, outcome, trigger, before }) }),
  };
}
