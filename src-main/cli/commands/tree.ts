// `backlot tree [show | set FILE]`: the policy tree as JSON. A tree that does not validate is
// refused with the node named, and the stored tree is not touched.
import type { Command } from './index';
import { CliUsageError, parseCommandArgs } from '../args';
import { withApp } from '../app';
import { readBoundedFile } from '../../system/bounded-read';

/** The same cap as an API request body: a tree at its node limit is a few tens of KiB. */
export const MAX_TREE_FILE_BYTES = 1024 * 1024;

const USAGE = 'tree [show | set FILE.json] [--data DIR]';

export const treeCommand: Command = {
  name: 'tree',
  summary: 'Show the policy tree, or replace it from a JSON file',
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, { data: { type: 'string' } }, USAGE);
    const [verb = 'show', file, ...extra] = positionals;
    if (extra.length > 0 || !['show', 'set'].includes(verb) || (verb === 'set') !== (file !== undefined)) throw new CliUsageError(`Usage: backlot ${USAGE}`);
    let input: unknown;
    if (verb === 'set') {
      // fstat before reading: a FIFO, /dev/zero or a huge file is refused, never read.
      const text = readBoundedFile(file!, MAX_TREE_FILE_BYTES, 'the policy tree file');
      try {
        input = JSON.parse(text);
      } catch (e) {
        throw new CliUsageError(`${file} is not valid JSON: ${(e as Error).message}.`, 1);
      }
    }
    return withApp(values.data, async (app) => {
      const arbiter = await app.dispatcher.prepare();
      const now = app.host.now();
      const tree = verb === 'set' ? app.host.transaction(() => arbiter.setTree(input, now)) : arbiter.treeStore.currentOrDefault(arbiter.laneKeys(), now).tree;
      process.stdout.write(`${JSON.stringify(tree, null, 2)}\n`);
      return 0;
    });
  },
};
