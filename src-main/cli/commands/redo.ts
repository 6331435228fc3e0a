// `backlot redo`: "do these again" (docs/architecture.md "Fingerprints"): the chosen outputs stay
// on disk but stop counting as current, so the work is stale and the enabled engines redo it.
import { poolEngineName } from '../../../src-shared/catalog/pool-lanes';
import type { Command } from './index';
import { CliUsageError, parseCommandArgs } from '../args';
import { withApp } from '../app';
import { isOperationId, OPERATION_IDS, operationSpec } from '../../../src-shared/catalog/operations';
import { BacklotError } from '../../../src-shared/errors';
import { TEST_ENGINE_ID } from '../../engines/test-engine/adapter';

const USAGE = 'redo OPERATION (ITEM... | --channel ID | --engine ENGINE) [--data DIR] [--json]';

export const redoCommand: Command = {
  name: 'redo',
  summary: 'Make chosen outputs stale so they are done again (e.g. by a better engine)',
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, { data: { type: 'string' }, json: { type: 'boolean' }, channel: { type: 'string' }, engine: { type: 'string' } }, USAGE);
    const [operation, ...items] = positionals;
    if (operation === undefined) throw new CliUsageError(`redo needs an operation. Usage: backlot ${USAGE}`);
    if (!isOperationId(operation)) throw new BacklotError('UNKNOWN_OPERATION', `There is no operation "${operation}"; the operations are ${OPERATION_IDS.join(', ')}.`, { operation });
    const forms = [items.length > 0, values.channel !== undefined, values.engine !== undefined].filter(Boolean).length;
    if (forms !== 1) throw new CliUsageError(`redo needs exactly one of: items, --channel ID or --engine ENGINE. Usage: backlot ${USAGE}`);
    const known = [...operationSpec(operation).engines.map((e) => e.id), TEST_ENGINE_ID];
    // `pocketsphinx@studio`: only what that pool's workers made (docs/pools.md "A unit on a worker").
    const poolEngine = values.engine === undefined ? null : poolEngineName(values.engine);
    if (values.engine !== undefined && !known.includes(values.engine) && !(poolEngine && known.includes(poolEngine.engine))) {
      throw new BacklotError('UNKNOWN_ENGINE', `There is no ${operation} engine "${values.engine}"; its engines are ${known.join(', ')}.`, { engine: values.engine });
    }
    return withApp(values.data, (app) => {
      const db = app.host.db;
      let targets: string[];
      if (values.channel !== undefined) {
        if (!app.host.library.channel(values.channel)) throw new BacklotError('CHANNEL_NOT_FOUND', `There is no channel "${values.channel}" in the library.`, { channel: values.channel });
        targets = db.prepare('SELECT item_id FROM work WHERE operation = ? AND channel_id = ? AND output_fp IS NOT NULL').pluck().all(operation, values.channel) as string[];
      } else if (values.engine !== undefined) {
        targets = db.prepare("SELECT item_id FROM work WHERE operation = ? AND output_engine >= ? AND output_engine < ?").pluck().all(operation, `${values.engine}@`, `${values.engine}A`) as string[];
      } else {
        for (const id of items) if (!app.host.work.row(operation, id)) throw new BacklotError('WORK_NOT_FOUND', `There is no item "${id}" with ${operation} work.`, { item: id, operation });
        targets = items;
      }
      const now = app.host.now();
      const redone = app.host.transaction(() => targets.filter((id) => app.host.work.supersede(operation, id, now)).length);
      if (values.json) process.stdout.write(`${JSON.stringify({ redone })}\n`);
      else process.stdout.write(redone === 0 ? `Nothing to redo: no matching ${operation} output is current.\n` : `${redone} ${operation} ${redone === 1 ? 'output is' : 'outputs are'} stale now and will be done again.\n`);
      return 0;
    });
  },
};
