// `backlot tree [show | set FILE]`: the policy tree as JSON. A tree that does not validate is
// refused with the node named, and the stored tree is not touched.
import fs from 'node:fs';
import type { Command } from './index';
import { CliUsageError, parseCommandArgs } from '../args';
import { withApp } from '../app';

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
      let text: string;
      try {
        text = fs.readFileSync(file!, 'utf8');
      } catch (e) {
        throw new CliUsageError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}.`, 1);
      }
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
