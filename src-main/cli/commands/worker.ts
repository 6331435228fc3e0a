// `backlot worker --join FILE`: run a pool's units on this machine until SIGINT or SIGTERM, and
// `backlot worker check --join FILE`: what works and what does not before it does (docs/pools.md
// "A unit on a worker", "Checking a worker"); check exits 1 when anything fails.
import type { Command } from './index';
import { CliUsageError, parseCommandArgs } from '../args';
import { defaultDataDir } from '../data-dir';
import { engineProfileFlag, testEngineOptions } from '../engine-flags';
import { listenForStop } from '../stop-signal';
import { checkWorker } from '../../worker/worker-check';
import { startPoolWorker } from '../../worker/pool-worker';
import { parseLanes, parseMaps, parseSlots } from '../../pools/pool-spec';
import { LANE_KEYS } from '../../../src-shared/catalog/lanes';

const USAGE = 'worker [check] --join FILE [--lanes gpu,cpu] [--slots gpu=N] [--scratch DIR] [--map A=B]... [--engines production|test] [--data DIR] [--json]';
const HELP = 'backlot worker --join FILE [--lanes gpu,cpu] [--slots gpu=N] [--scratch DIR] [--map A=B]... [--engines production|test] [--data DIR]\n'
  + '       backlot worker check --join FILE [--engines production|test] [--data DIR] [--json]';

const FLAGS = {
  join: { type: 'string' }, data: { type: 'string' }, json: { type: 'boolean' }, engines: { type: 'string' },
  lanes: { type: 'string' }, slots: { type: 'string', multiple: true }, scratch: { type: 'string' }, map: { type: 'string', multiple: true },
} as const;

export const workerCommand: Command = {
  name: 'worker',
  summary: 'Run a pool\'s units on this machine, or check that it can (Redis, TLS, ACL, door, mappings, engines)',
  usage: USAGE,
  help: HELP,
  async run(args) {
    const parsed = parseCommandArgs(args, FLAGS, USAGE);
    const positionals = parsed.positionals;
    // parseArgs gives `multiple` flags as arrays; the shared parser's type does not say so.
    const values = parsed.values as { join?: string; data?: string; json?: boolean; engines?: string; lanes?: string; slots?: string[]; scratch?: string; map?: string[] };
    if (positionals.length > 1 || (positionals.length === 1 && positionals[0] !== 'check')) throw new CliUsageError(`worker takes check or no word at all. Usage: backlot ${USAGE}`);
    if (!values.join) throw new CliUsageError(`worker needs --join FILE (the pool's join file). Usage: backlot ${USAGE}`);
    const engines = engineProfileFlag(values.engines);
    const dataDir = values.data ?? defaultDataDir();
    if (positionals[0] === 'check') {
      for (const flag of ['lanes', 'slots', 'scratch', 'map'] as const) if (values[flag] !== undefined) throw new CliUsageError(`worker check takes no --${flag}. Usage: backlot ${USAGE}`);
      const report = await checkWorker({ joinFile: values.join, dataDir, engines });
      if (values.json) {
        process.stdout.write(`${JSON.stringify(report)}\n`);
      } else {
        for (const c of report.checks) process.stdout.write(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.code ? `${c.code}: ` : ''}${c.message}\n`);
        process.stdout.write(report.ok ? 'This machine can work for the pool.\n' : `${report.checks.filter((c) => !c.ok).length} check(s) failed.\n`);
      }
      return report.ok ? 0 : 1;
    }
    if (values.json) throw new CliUsageError(`--json belongs to worker check. Usage: backlot ${USAGE}`);
    const lanes = values.lanes === undefined ? undefined : parseLanes(values.lanes);
    const slots = parseSlots(values.slots ?? [], lanes ?? LANE_KEYS);
    const maps = values.map === undefined ? undefined : parseMaps(values.map);
    const stop = listenForStop();
    let onHangup: (() => void) | null = null;
    try {
      const worker = await startPoolWorker({
        joinFile: values.join, dataDir, engines, ...(lanes ? { lanes } : {}), slots, ...(maps ? { maps } : {}),
        ...(values.scratch ? { scratch: values.scratch } : {}),
        // On a worker the test engine is long-lived, as the production engines that keep a model are.
        ...(engines === 'test' ? { test: { ...testEngineOptions(engines, undefined, process.env.BACKLOT_TEST_FAULTS), longLived: true } } : {}),
        ...recheckFromEnv(process.env.BACKLOT_WORKER_ENGINE_RECHECK_MS),
      });
      if (worker.serving.length === 0) process.stdout.write('backlot worker: no lane is in service; waiting for a signal to stop (fix the reasons above and start again, or send SIGHUP).\n');
      // SIGHUP judges every lane again at once (an engine's model or a mount that appeared).
      onHangup = () => { void worker.recheck(); };
      process.on('SIGHUP', onHangup);
      await stop.requested;
      await worker.close();
      return 0;
    } finally {
      stop.dispose();
      if (onHangup) process.off('SIGHUP', onHangup);
    }
  },
};

/**
 * BACKLOT_WORKER_ENGINE_RECHECK_MS: the first wait before a lane out of service for a missing engine
 * is judged again, for tests only (docs/pools.md "An engine a worker lacks"; default 30 s).
 */
function recheckFromEnv(value: string | undefined): { engineRecheckMs?: number } {
  if (value === undefined || !/^\d{1,9}$/.test(value) || Number(value) < 1) return {};
  return { engineRecheckMs: Number(value) };
}
