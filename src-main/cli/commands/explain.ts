// `backlot explain ITEM OPERATION`: "why is this not running?" from a terminal.
import type { Command } from './index';
import { CliUsageError, parseCommandArgs } from '../args';
import { withApp } from '../app';
import { explain } from '../../explain/explain';
import { isOperationId, OPERATION_IDS } from '../../../src-shared/catalog/operations';

const USAGE = 'explain ITEM OPERATION [--data DIR] [--json]';

export const explainCommand: Command = {
  name: 'explain',
  summary: 'Say why an item\'s operation is not running: its state and one reason',
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, { data: { type: 'string' }, json: { type: 'boolean' } }, USAGE);
    if (positionals.length !== 2) throw new CliUsageError(`explain takes an item and an operation. Usage: backlot ${USAGE}`);
    const [item, operation] = positionals;
    if (!isOperationId(operation)) throw new CliUsageError(`"${operation}" is not an operation; use one of ${OPERATION_IDS.join(', ')}.`);
    return withApp(values.data, async (app) => {
      const x = explain(app.host, await app.dispatcher.prepare(), item, operation, app.host.now());
      if (values.json) process.stdout.write(`${JSON.stringify(x)}\n`);
      else process.stdout.write(`${item} ${operation}: ${x.state} (${x.reason.code}${Object.keys(x.reason.params).length ? ` ${JSON.stringify(x.reason.params)}` : ''})\n`);
      return 0;
    });
  },
};
