// The handlers of the window's methods (src-shared/api/window-contract.ts): thin adapters from a
// validated request to the library list, the explain and run history of one item, the media
// tickets, the lanes' running units with their progress, the demo library and the preview.
import { recordedEngineId } from '../../src-shared/catalog/pool-lanes';
import path from 'node:path';
import type { ApiHandlers, ChannelSummary, RunDto } from '../../src-shared/api/contract';
import type { RunningUnitDto } from '../../src-shared/api/window-contract';
import type { Host } from '../host/host';
import type { Dispatcher } from '../dispatch/dispatcher';
import { listItems } from '../library/item-list';
import { explain } from '../explain/explain';
import { RunHistory } from '../runs/history';
import { laneStatuses } from '../dispatch/lane-status';
import { MediaTickets } from './media-tickets';
import { addDemoLibrary } from '../library/demo-library';
import { removeSource } from '../library/remove-source';
import { resourcesDir } from '../engines/resources';
import { previewScenario } from '../sim/preview';
import { runPreview } from '../sim/preview-runner';
import { leafMatches } from '../explain/leaf-matches';
import { ITEM_OPERATIONS } from '../../src-shared/catalog/operations';
import { validatePolicyTree } from '../../src-shared/policy/validate';
import { BacklotError } from '../../src-shared/errors';

type WindowMethods = 'items.list' | 'items.get' | 'media.url' | 'lanes.detail' | 'library.demo' | 'library.remove' | 'runs.get' | 'preview.run' | 'preview.progress' | 'tree.matches';

export interface WindowHandlerOptions {
  /** The shell's media door: which tickets it serves and the URL a window plays one from. */
  media?: { tickets: MediaTickets; url: (ticket: string) => string };
}

export function createWindowHandlers(
  host: Host,
  d: Dispatcher,
  summary: (id: string) => ChannelSummary,
  libraryChanged: () => Promise<void>,
  options: WindowHandlerOptions = {},
): Pick<ApiHandlers, WindowMethods> {
  const arbiter = () => d.prepare();
  const history = new RunHistory(host.db);
  const media = options.media ?? { tickets: new MediaTickets(host), url: (t: string) => `/media/${t}` };
  const dataDir = path.dirname(host.db.name);
  const titleOf = host.db.prepare('SELECT title FROM items WHERE id = ?').pluck();
  const channelTitle = host.db.prepare('SELECT title FROM channels WHERE id = ?').pluck();
  const lastRuns = host.db.prepare('SELECT operation, last_run, attempts, output_engine FROM work WHERE item_id = ?');
  /** The previews running now and how far each is (preview.progress). */
  const previews = new Map<symbol, number>();

  return {
    'items.list': (q) => listItems(host.db, q),

    'items.get': async ({ item }) => {
      const record = host.library.item(item);
      if (!record) throw new BacklotError('ITEM_NOT_FOUND', `There is no item "${item}" in the library.`, { item });
      const a = await arbiter();
      const now = host.now();
      const rows = new Map((lastRuns.all(item) as { operation: string; last_run: number | null; attempts: number; output_engine: string | null }[]).map((r) => [r.operation, r]));
      const operations = ITEM_OPERATIONS.filter((op) => rows.has(op.id)).map((op) => {
        const x = explain(host, a, item, op.id, now);
        const row = rows.get(op.id)!;
        const run: RunDto | undefined = row.last_run === null ? undefined : history.run(row.last_run);
        return {
          operation: op.id as Exclude<typeof op.id, 'sync'>, state: x.state, reason: x.reason, attempts: row.attempts,
          engine: row.output_engine === null ? null : recordedEngineId(row.output_engine), lastRun: run ?? null,
        };
      });
      const channel = host.library.channel(record.channel_id);
      return {
        item: {
          id: record.id, title: record.title, channel: record.channel_id, channelTitle: channel?.title ?? record.channel_id,
          publishedAt: record.published_at, durationS: record.duration_s, media: record.media_state,
          states: Object.fromEntries(operations.map((o) => [o.operation, o.state])),
          running: operations.filter((o) => o.reason.code === 'RUNNING').map((o) => o.operation),
          source: channel?.source ?? '', fileName: record.media_path ? path.basename(record.media_path) : null, sizeBytes: record.size_bytes,
        },
        operations,
      };
    },

    'media.url': ({ item }) => {
      const t = media.tickets.issue(item);
      return { url: media.url(t.ticket), mimeType: t.mimeType, kind: t.kind, expiresAt: t.expiresAt };
    },

    'lanes.detail': async () => {
      const a = await arbiter();
      const now = host.now();
      const unitOf = (u: ReturnType<typeof a.runningOn>[number]): RunningUnitDto => {
        const p = d.progressOf(u);
        const title = (u.operation === 'sync' ? channelTitle.get(u.channelId) : titleOf.get(u.itemId)) as string | undefined;
        return {
          operation: u.operation, item: u.itemId, title: title ?? u.itemId, channel: u.channelId, slot: u.slot, run: u.runId,
          trigger: u.trigger, startedAt: u.startedAt,
          progress: p ? {
            ratio: Math.min(1, Math.max(0, p.ratio)), etaS: p.etaS,
            message: p.message?.text ?? null, key: p.message?.key ?? null, params: p.message?.key ? (p.message.params ?? {}) : null,
          } : null,
          waitingForCpu: p?.waitingForCpu ?? false,
        };
      };
      const lanes = laneStatuses(a, now).map((status) => ({
        ...status,
        engines: a.bindingsOn(status.lane).map((b) => ({ engine: b.engineId, operation: b.operation, preflight: b.preflight })),
        units: a.runningOn(status.lane).sort((x, y) => x.slot - y.slot).map(unitOf),
      }));
      const cfg = a.settings();
      const full = d.diskFull.status();
      return {
        lanes,
        disk: {
          mode: a.currentDiskMode(),
          freeBytes: cfg.disk?.probe.freeBytes() ?? null,
          drainingBelowBytes: cfg.disk?.thresholds.drainingBelowBytes ?? 0,
          shutBelowBytes: cfg.disk?.thresholds.shutBelowBytes ?? 0,
          full: full ? { since: full.since, path: full.path } : null,
        },
        spend: { capUsd: cfg.spendCapUsd, spentUsd: a.spentUsd(now), window: d.settings.get('spend.window') },
      };
    },

    'library.demo': async () => {
      const r = await addDemoLibrary(host, { dataDir, bundledDir: path.join(resourcesDir(), 'demo') });
      await libraryChanged();
      return { channel: summary(r.channel.id), clips: r.clips, synthesised: r.synthesised };
    },

    // `backlot library remove` (src-main/library/remove-source.ts) for the window: what it keeps is
    // in its answer (downloaded media stays unless asked; a watched folder's files are never touched).
    'library.remove': async ({ channel, deleteMedia }) => {
      const r = removeSource(host, dataDir, channel, { deleteMedia });
      await libraryChanged();
      return r;
    },

    'runs.get': ({ run }) => {
      const found = history.run(run);
      if (!found) throw new BacklotError('RUN_NOT_FOUND', `There is no run ${run}; it may never have existed or been pruned after the retention period.`, { run });
      return { run: found };
    },

    // What each leaf of a draft tree selects now, so the editor can warn about a leaf that matches
    // nothing (a typo'd id, a channel removed; docs/scheduling.md "Rules by name").
    'tree.matches': async ({ tree }) => {
      const a = await arbiter();
      const checked = validatePolicyTree(tree, { lanes: a.laneKeys() });
      return { leaves: leafMatches(host.db, checked, (lane) => a.bindingsOn(lane).map((b) => b.operation), host.now()) };
    },

    'preview.run': async ({ tree }) => {
      const a = await arbiter();
      const now = host.now();
      // The host's own validation first: a tree it would refuse to store is refused here the same way.
      const edited = validatePolicyTree(tree, { lanes: a.laneKeys() });
      const current = a.treeStore.currentOrDefault(a.laneKeys(), now).tree;
      // A lane held by its own pause or by "pause everything" starts paused in the simulation.
      const paused = a.laneKeys().filter((l) => a.holds.isGateHeld(l));
      const cfg = a.settings();
      const built = previewScenario(host.db, {
        now, lanes: a.laneConfigs(), paused, bindings: cfg.bindings, settings: d.settings.values(),
        freeBytes: cfg.disk?.probe.freeBytes() ?? null,
        spentUsd: a.spentUsd(now),
      });
      // Several windows may preview at once: each run's ratio is kept until it answers.
      const run = Symbol('preview');
      previews.set(run, 0);
      try {
        return await runPreview(built, current, edited, (ratio) => previews.set(run, ratio));
      } finally {
        previews.delete(run);
      }
    },

    'preview.progress': async () => {
      // The least advanced of the previews running (the window shows one bar).
      const running = [...previews.values()];
      return { ratio: running.length === 0 ? null : Math.min(...running) };
    },
  };
}
