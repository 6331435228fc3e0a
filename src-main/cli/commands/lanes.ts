// `backlot lanes [list|pause LANE|resume LANE]`: the lanes and their holds, and the same pause
// writer the window and the tray use ("*" pauses everything).
import type { Command } from './index';
import { CliUsageError, parseCommandArgs } from '../args';
import { withApp } from '../app';
import { laneStatuses, setLanePaused } from '../../dispatch/lane-status';
import { PoolStore } from '../../pools/pool-store';
import type { LaneStatusDto } from '../../../src-shared/api/contract';
import { EN } from '../../shells/electron/text/en';
import { formattersFor, type Formatters } from '../../shells/electron/text/desktop-text';

/**
 * The lanes as `backlot lanes` prints them: one line per lane; a pool lane's hold also in words, and
 * under it one line per live worker (docs/pools.md "Pool lanes on the lanes page").
 */
export function lanesText(lanes: readonly LaneStatusDto[], f: Formatters): string {
  let out = '';
  for (const l of lanes) {
    const code = l.hold ? `${l.hold.code}${l.hold.params.code ? ` (${String(l.hold.params.code)})` : ''}` : 'open';
    const words = l.hold && l.pool ? `: ${EN.hold(l.hold, f)}` : '';
    out += `${l.lane.padEnd(10)} slots ${l.slots}  running ${l.running}  ${l.paused ? 'paused' : 'not paused'}  ${code}${words}\n`;
    if (!l.pool) continue;
    if (l.pool.workers.length === 0) out += `  no live worker in pool ${l.pool.name}\n`;
    for (const w of l.pool.workers) {
      const engines = w.engines.map((e) => (e.ok ? e.id : `${e.id} (${e.code ?? 'failed'})`)).join(', ') || 'none';
      const why = w.outOfService && typeof w.outOfService.params.code === 'string' ? ` (${w.outOfService.params.code})` : '';
      const state = w.outOfService ? `out of service: ${w.outOfService.code}${why}` : 'in service';
      out += `  worker ${w.id} on ${w.host}  version ${w.version}  free ${w.freeSlots}/${w.slots}  engines ${engines}  last heartbeat ${new Date(w.lastHeartbeat).toISOString()}  ${state}\n`;
    }
  }
  return out;
}

const USAGE = 'lanes [list | pause LANE | resume LANE] [--data DIR] [--json]';

export const lanesCommand: Command = {
  name: 'lanes',
  summary: 'Show lanes with their slots and holds; pause or resume a lane (* for all)',
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, { data: { type: 'string' }, json: { type: 'boolean' } }, USAGE);
    const [verb = 'list', lane, ...extra] = positionals;
    if (extra.length > 0 || !['list', 'pause', 'resume'].includes(verb) || (verb !== 'list') !== (lane !== undefined)) {
      throw new CliUsageError(`Usage: backlot ${USAGE}`);
    }
    return withApp(values.data, async (app) => {
      const arbiter = await app.dispatcher.prepare();
      const now = app.host.now();
      if (verb !== 'list') setLanePaused(arbiter, lane!, verb === 'pause', now, 'cli', new PoolStore(app.host.db).laneNames());
      const lanes = laneStatuses(arbiter, now);
      if (values.json) {
        process.stdout.write(`${JSON.stringify({ lanes })}\n`);
      } else {
        process.stdout.write(lanesText(lanes, formattersFor('en')));
      }
      return 0;
    }, { readPoolLanes: true });
  },
};
