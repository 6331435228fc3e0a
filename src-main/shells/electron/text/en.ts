// The desktop shell in English (the table every other language mirrors; see desktop-text.ts).
import type { DesktopText, Formatters, Params } from './desktop-text';
import { distinctParams, numberParam, sharedParam, textParam } from './desktop-text';

const LANES: Record<string, string> = { sync: 'sync', download: 'download', gpu: 'GPU', cpu: 'CPU', remote: 'remote' };
const OPERATIONS: Record<string, string> = {
  sync: 'sync', download: 'download', transcribe: 'transcription', diarize: 'diarization',
  'attribute-voices': 'voice attribution', 'attribute-words': 'word attribution', digest: 'digest',
};
// A pool lane is its base lane's name with its pool: `GPU@studio` (docs/pools.md).
const laneLabel = (lane: string): string => (lane.includes('@') ? `${laneLabel(lane.slice(0, lane.indexOf('@')))}@${lane.slice(lane.indexOf('@') + 1)}` : LANES[lane] ?? lane);
const operation = (id: string) => OPERATIONS[id] ?? id;
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const plural = (n: number, one: string, many: string, f: Formatters) => `${f.count(n)} ${n === 1 ? one : many}`;
const SPEND_WINDOW: Record<string, string> = { day: 'today', week: 'this week', month: 'this month' };

function hold(code: string, p: Params, f: Formatters): string {
  switch (code) {
    case 'LANE_PAUSED': return p.all === true ? 'paused with everything else' : 'paused';
    case 'LANE_NO_SLOTS': return 'has no slots';
    case 'QUIET_HOURS': {
      const until = numberParam(p, 'until');
      return until === undefined ? 'quiet hours' : `quiet hours until ${f.clock(until)}`;
    }
    case 'SPEND_CAP': {
      const cap = numberParam(p, 'capUsd');
      return cap === undefined ? 'the spend cap is reached' : `the spend cap of ${f.usd(cap)} is reached`;
    }
    case 'GPU_YIELD': return 'gives the GPU to a transcription';
    case 'DISK_GATE':
      return textParam(p, 'mode') === 'shut' ? 'the disk is nearly full: downloads are stopped'
        : textParam(p, 'mode') === 'draining' ? 'disk space is low: no new downloads start' : 'held by the disk gate';
    case 'DISK_FULL': return 'the disk is full: nothing can be written';
    case 'NETWORK_COOLDOWN': {
      const platform = textParam(p, 'platform') ?? 'a platform';
      const until = numberParam(p, 'until');
      return until === undefined ? `waits for ${platform} to accept requests again` : `waits for ${platform} until ${f.clock(until)}`;
    }
    case 'PREFLIGHT_FAILED': {
      const c = textParam(p, 'code');
      return `its engines failed their check${c ? ` (${c})` : ''}`;
    }
    case 'POOL_OFFLINE': return 'no worker of the pool is live';
    case 'POOL_TRANSPORT_DOWN': return "the pool's transport (Redis) cannot be reached";
    case 'WORKER_LOST': return 'a worker stopped answering; its unit is queued again';
    case 'WORKER_OUT_OF_SERVICE': return 'its worker took itself out of service';
    default: return `held (${code})`;
  }
}

export const EN: DesktopText = {
  locale: 'en',
  trayState: { idle: 'Idle', working: 'Working', held: 'Held', failed: 'Something failed' },
  tooltip: {
    running: (count, perLane) => `${count} running: ${perLane}`,
    nothingRunning: 'Nothing is running.',
    held: (lanes) => (lanes === 1 ? '1 lane is held.' : `${lanes} lanes are held.`),
    failures: (count) => (count === 1 ? '1 failure since you last looked.' : `${count} failures since you last looked.`),
  },
  tray: {
    open: 'Open Backlot',
    pauseAll: 'Pause everything',
    resumeAll: 'Resume everything',
    lanes: 'Lanes',
    pauseLane: (label, status) => `Pause ${label} — ${status}`,
    resumeLane: (label) => `Resume ${label} — paused`,
    laneIdle: 'idle',
    laneRunning: (count) => `${count} running`,
    holds: 'Holds',
    noHolds: 'Nothing holds the lanes',
    quit: 'Quit Backlot',
  },
  laneLabel,
  operation,
  hold: (h, f) => hold(h.code, h.params, f),
  notices: {
    'run-failed': {
      one: (n, f) => {
        const op = capital(operation(textParam(n.params, 'operation') ?? 'work'));
        const what = textParam(n.params, 'title') ?? textParam(n.params, 'item');
        const attempts = numberParam(n.params, 'attempts');
        return {
          title: 'Work failed',
          body: `${op} failed${what ? ` for “${what}”` : ''} ${attempts ? `after ${plural(attempts, 'attempt', 'attempts', f)}` : 'after its last retry'}.`,
        };
      },
      many: (count, ns, f) => {
        const op = sharedParam(ns, 'operation');
        return { title: 'Work failed', body: `${plural(count, op ? `${operation(op)} job` : 'piece of work', op ? `${operation(op)} jobs` : 'pieces of work', f)} failed after their last retry.` };
      },
    },
    'disk-gate-shut': {
      one: (n, f) => {
        const free = numberParam(n.params, 'freeBytes');
        return {
          title: 'Downloads stopped',
          body: free === undefined ? 'The library disk is nearly full, so media downloads are stopped.'
            : `The library disk has only ${f.bytes(free)} free, so media downloads are stopped.`,
        };
      },
      many: (count, _ns, f) => ({ title: 'Downloads stopped', body: `The disk gate shut ${plural(count, 'time', 'times', f)}: the library disk is nearly full, so media downloads are stopped.` }),
    },
    'disk-full': {
      one: () => ({ title: 'Disk full', body: 'The disk is full: Backlot holds all writing and resumes by itself when space returns.' }),
      many: () => ({ title: 'Disk full', body: 'The disk is full: Backlot holds all writing and resumes by itself when space returns.' }),
    },
    'cooldown-opened': {
      one: (n, f) => {
        const platform = textParam(n.params, 'platform') ?? 'A platform';
        const until = numberParam(n.params, 'until');
        return {
          title: 'Platform cooldown',
          body: `${platform} refused Backlot; its downloads and syncs wait${until === undefined ? ' a while' : ` until ${f.clock(until)}`}.`,
        };
      },
      many: (count, ns, f) => {
        const platforms = distinctParams(ns, 'platform');
        return {
          title: 'Platform cooldown',
          body: platforms.length === 1 ? `${platforms[0]} refused Backlot ${plural(count, 'time', 'times', f)}; its downloads and syncs wait.`
            : `${plural(count, 'platform refusal', 'platform refusals', f)}${platforms.length > 0 ? ` (${platforms.join(', ')})` : ''}; their downloads and syncs wait.`,
        };
      },
    },
    'preflight-failed': {
      one: (n) => {
        const lane = textParam(n.params, 'lane');
        const code = textParam(n.params, 'code');
        return { title: 'A lane cannot start', body: `The ${lane ? `${laneLabel(lane)} ` : ''}lane cannot start: its engines failed their check${code ? ` (${code})` : ''}.` };
      },
      many: (count, ns, f) => {
        const lanes = distinctParams(ns, 'lane').map(laneLabel);
        return { title: 'Lanes cannot start', body: `${plural(count, 'lane check', 'lane checks', f)} failed${lanes.length > 0 ? ` (${lanes.join(', ')})` : ''}: those lanes cannot start.` };
      },
    },
    'spend-cap-reached': {
      one: (n, f) => {
        const cap = numberParam(n.params, 'capUsd');
        const window = SPEND_WINDOW[textParam(n.params, 'window') ?? ''];
        return { title: 'Spend cap reached', body: `Remote work stopped at the spend cap${cap === undefined ? '' : ` of ${f.usd(cap)}`}${window ? ` for ${window}` : ''}.` };
      },
      many: (_count, ns, f) => EN.notices['spend-cap-reached'].one(ns[ns.length - 1], f),
    },
    'backlog-finished': {
      one: (n, f) => {
        const op = textParam(n.params, 'operation');
        const done = numberParam(n.params, 'done');
        return { title: 'Backlog finished', body: `The ${op ? `${operation(op)} ` : ''}backlog is finished${done === undefined ? '' : `: ${plural(done, 'item', 'items', f)} done`}.` };
      },
      many: (count, ns, f) => {
        const ops = distinctParams(ns, 'operation').map(operation);
        return { title: 'Backlogs finished', body: `${plural(count, 'backlog is', 'backlogs are', f)} finished${ops.length > 0 ? `: ${ops.join(', ')}` : ''}.` };
      },
    },
  },
  closedToTray: {
    title: 'Backlot keeps working',
    body: 'The window is closed but Backlot keeps working in the tray; quit it from the tray menu.',
  },
  menu: {
    file: 'File', edit: 'Edit', view: 'View', window: 'Window', help: 'Help', go: 'Go',
    settings: 'Settings…', closeWindow: 'Close Window', quit: 'Quit Backlot', about: 'About Backlot',
    hide: 'Hide Backlot', hideOthers: 'Hide Others', showAll: 'Show All', services: 'Services',
    undo: 'Undo', redo: 'Redo', cut: 'Cut', copy: 'Copy', paste: 'Paste', selectAll: 'Select All',
    reload: 'Reload', devTools: 'Toggle Developer Tools', actualSize: 'Actual Size', zoomIn: 'Zoom In', zoomOut: 'Zoom Out',
    fullScreen: 'Toggle Full Screen', minimize: 'Minimize', zoom: 'Zoom', front: 'Bring All to Front',
    library: 'Library', lanes: 'Lanes', runs: 'Runs',
  },
};
