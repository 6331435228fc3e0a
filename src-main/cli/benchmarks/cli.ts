// The command line's own figures: `backlot --help` and an engine's cold and warm start
// (docs/benchmarks.md "The command line").
import { numberFlag } from '../args';
import { benchCli } from '../../bench/cli-bench';
import { print, type Benchmark } from './types';

export const cliBench: Benchmark = {
  name: 'cli',
  usage: 'cli [--passes N]',
  async run(values) {
    const r = await benchCli(Math.floor(numberFlag(values.passes, 'passes', 10)));
    print(values, r, () => `backlot --help: median ${r.helpMedianMs} ms (p90 ${r.helpP90Ms}; node -e 0 alone ${r.nodeBaselineMedianMs} ms); engine start: cold median ${r.engineColdMedianMs} ms, warm worker median ${r.engineWarmMedianMs} ms; ${r.passes} passes on ${r.machine.cores} × ${r.machine.cpu}, load ${r.machine.loadAverage1m}, node ${r.machine.node}`);
  },
};
