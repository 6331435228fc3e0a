// `backlot bench NAME`: the benchmarks whose figures docs/benchmarks.md records, each from the
// list in src-main/cli/benchmarks/, printed as a sentence or (--json) one JSON line.
import { CliUsageError, parseCommandArgs } from '../args';
import { BENCHMARKS } from '../benchmarks/index';
import { BENCH_FLAGS } from '../benchmarks/types';
import type { Command } from './index';

const PUBLIC = BENCHMARKS.filter((b) => !b.internal);
const USAGE = `backlot bench ${PUBLIC.map((b) => b.usage).join(' | bench ')} [--json]`;

export const benchCommand: Command = {
  name: 'bench',
  summary: 'Benchmarks: the figures of docs/benchmarks.md',
  usage: `bench ${PUBLIC.map((b) => b.name).join('|')} [--json]`,
  help: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, BENCH_FLAGS, USAGE);
    const [which, ...extra] = positionals;
    if (extra.length > 0) throw new CliUsageError(`bench takes one benchmark name. Usage: ${USAGE}`);
    const bench = BENCHMARKS.find((b) => b.name === which);
    if (!bench) throw new CliUsageError(`bench knows ${PUBLIC.map((b) => b.name).join(', ')}; got "${which ?? ''}". Usage: ${USAGE}`);
    await bench.run(values);
    return 0;
  },
};
