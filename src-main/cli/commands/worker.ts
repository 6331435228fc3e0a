// `backlot worker check --join FILE`: what works and what does not on a machine meant to join a
// pool (docs/pools.md "Checking a worker"); exits 1 when anything fails. The worker itself is not built yet.
import type { Command } from './index';
import { CliUsageError, parseCommandArgs } from '../args';
import { defaultDataDir } from '../data-dir';
import { engineProfileFlag } from '../engine-flags';
import { checkWorker } from '../../worker/worker-check';

const USAGE = 'worker check --join FILE [--engines production|test] [--data DIR] [--json]';

export const workerCommand: Command = {
  name: 'worker',
  summary: 'Check that this machine can work for a pool (Redis, TLS, ACL, door, mappings, engines)',
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, { join: { type: 'string' }, data: { type: 'string' }, json: { type: 'boolean' }, engines: { type: 'string' } }, USAGE);
    if (positionals.length !== 1 || positionals[0] !== 'check') throw new CliUsageError(`worker needs check (the worker process itself is not built yet, docs/pools.md). Usage: backlot ${USAGE}`);
    if (!values.join) throw new CliUsageError(`worker check needs --join FILE. Usage: backlot ${USAGE}`);
    const report = await checkWorker({ joinFile: values.join, dataDir: values.data ?? defaultDataDir(), engines: engineProfileFlag(values.engines) });
    if (values.json) {
      process.stdout.write(`${JSON.stringify(report)}\n`);
    } else {
      for (const c of report.checks) process.stdout.write(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.code ? `${c.code}: ` : ''}${c.message}\n`);
      process.stdout.write(report.ok ? 'This machine can work for the pool.\n' : `${report.checks.filter((c) => !c.ok).length} check(s) failed.\n`);
    }
    return report.ok ? 0 : 1;
  },
};
