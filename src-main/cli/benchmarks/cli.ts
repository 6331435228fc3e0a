// The command line's own figures: `backlot --help` and an engine's cold and warm start
// (docs/benchmarks.md "The command line").
import { numberFlag } from '../args';
import { benchCli } from '../../bench/cli-bench';
import { print, type Benchmark } from './types';

export const cliBench: Benchmark = {
  name: 'cli',
  usage: 'cli [--passes N] [--keep DIR [--items N --channels M]]',
  async run(values) {
    const library = typeof values.keep === 'string'
      ? { dir: values.keep, items: Math.floor(numberFlag(values.items, 'items', 78_000)), channels: Math.floor(numberFlag(values.channels, 'channels', 68)) }
      : undefined;
    const r = await benchCli(Math.floor(numberFlag(values.passes, 'passes', 10)), library);
    const items = r.items ? `; items --json (${r.items.items} items, ${(r.items.stdoutBytes / 1024 ** 2).toFixed(1)} MB): median ${r.items.medianMs} ms (p90 ${r.items.p90Ms})` : '';
    print(values, r, () => `backlot --help: median ${r.helpMedianMs} ms (p90 ${r.helpP90Ms}; node -e 0 alone ${r.nodeBaselineMedianMs} ms)${items}; engine start: cold median ${r.engineColdMedianMs} ms${r.engineColdCpuMs !== null ? ` (${r.engineColdCpuMs} ms of the engine's CPU)` : ''}, warm worker median ${r.engineWarmMedianMs} ms; ${r.passes} passes on ${r.machine.cores} × ${r.machine.cpu}, load ${r.machine.loadAverage1m}, node ${r.machine.node}`);
  },
};
