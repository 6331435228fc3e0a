// `backlot retry`: the user's "try again" for work deferred as failed or waiting in backoff.
import { CliUsageError, parseCommandArgs } from '../args';
import { withLibrary } from './runs';
import { WorkStore } from '../../work/work-store';
import { UnitOfWork } from '../../db/unit-of-work';
import { retryWork, type RetryTarget } from '../../work/retry';
import type { Command } from './index';

const USAGE = 'backlot retry <item> <operation> | --channel ID --operation OP | --all [--operation OP] [--data DIR] [--json]';

export const retryCommand: Command = {
  name: 'retry',
  summary: 'Retry failed or backing-off work now',
  usage: 'retry ITEM OP | --channel ID --operation OP | --all',
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, {
      data: { type: 'string' }, json: { type: 'boolean' }, channel: { type: 'string' },
      operation: { type: 'string' }, all: { type: 'boolean' },
    }, USAGE);
    const forms = [positionals.length > 0, values.channel !== undefined, values.all === true].filter(Boolean).length;
    if (forms !== 1) throw new CliUsageError(`retry needs exactly one of: an item and an operation, --channel, or --all. Usage: ${USAGE}`);
    let target: RetryTarget;
    if (positionals.length > 0) {
      if (positionals.length !== 2 || values.operation !== undefined) throw new CliUsageError(`retry takes an item and an operation. Usage: ${USAGE}`);
      target = { item: positionals[0], operation: positionals[1] };
    } else if (values.channel !== undefined) {
      if (values.operation === undefined) throw new CliUsageError(`retry --channel needs --operation OP. Usage: ${USAGE}`);
      target = { channel: values.channel, operation: values.operation };
    } else {
      target = { all: true, operation: values.operation };
    }
    return withLibrary(values.data, (db) => {
      const uow = new UnitOfWork(db);
      const retried = retryWork(uow, new WorkStore(uow), target, Date.now() / 1000);
      if (values.json) process.stdout.write(`${JSON.stringify({ retried })}\n`);
      else process.stdout.write(retried === 0 ? 'Nothing to retry: no matching work is deferred as failed or in backoff.\n' : `Retried ${retried} (item, operation) ${retried === 1 ? 'pair' : 'pairs'}; they are reachable again.\n`);
      return 0;
    });
  },
};
