// `backlot lanes [list|pause LANE|resume LANE]`: the lanes and their holds, and the same pause
// writer the window and the tray use ("*" pauses everything).
import type { Command } from './index';
import { CliUsageError, parseCommandArgs } from '../args';
import { withApp } from '../app';
import { laneStatuses, setLanePaused } from '../../dispatch/lane-status';

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
      if (verb !== 'list') setLanePaused(arbiter, lane!, verb === 'pause', now, 'cli');
      const lanes = laneStatuses(arbiter, now);
      if (values.json) {
        process.stdout.write(`${JSON.stringify({ lanes })}\n`);
      } else {
        for (const l of lanes) {
          const hold = l.hold ? `${l.hold.code}${l.hold.params.code ? ` (${String(l.hold.params.code)})` : ''}` : 'open';
          process.stdout.write(`${l.lane.padEnd(10)} slots ${l.slots}  running ${l.running}  ${l.paused ? 'paused' : 'not paused'}  ${hold}\n`);
        }
      }
      return 0;
    });
  },
};
