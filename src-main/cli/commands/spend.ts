// `backlot spend`: what remote engines spent today, this ISO week and this month (UTC), with their
// requests and tokens, and where the spend cap stands in its window.
import type { Command } from './index';
import { CliUsageError, parseCommandArgs } from '../args';
import { withApp } from '../app';
import { spendReport } from '../../runs/spend-report';

const USAGE = 'spend [--data DIR] [--json]';

export const spendCommand: Command = {
  name: 'spend',
  summary: 'Show money spent by remote engines per day, week and month, and the spend cap',
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, { data: { type: 'string' }, json: { type: 'boolean' } }, USAGE);
    if (positionals.length > 0) throw new CliUsageError(`spend takes no arguments. Usage: backlot ${USAGE}`);
    return withApp(values.data, (app) => {
      const s = app.dispatcher.settings;
      const r = spendReport(app.host.db, app.host.now(), s.get('spend.capUsd'), s.get('spend.window'));
      if (values.json) {
        process.stdout.write(`${JSON.stringify(r)}\n`);
        return 0;
      }
      for (const p of [r.day, r.week, r.month]) {
        process.stdout.write(`${p.key.padEnd(10)}  $${p.usd.toFixed(4).padStart(10)}  ${p.requests} requests  ${p.inputTokens} tokens in  ${p.outputTokens} out${p.estimatedUsd > 0 ? `  ($${p.estimatedUsd.toFixed(4)} estimated)` : ''}\n`);
      }
      process.stdout.write(r.capUsd === null ? 'No spend cap (spend.capUsd).\n'
        : `Cap $${r.capUsd.toFixed(2)} per ${r.window}: $${r.windowUsd.toFixed(4)} spent, $${(r.remainingUsd ?? 0).toFixed(4)} left.\n`);
      return 0;
    });
  },
};
