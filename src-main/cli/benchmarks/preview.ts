// The what-if preview's benchmark: the whole generated library, the stored tree against a changed
// one (docs/benchmarks.md "What-if preview").
import { numberFlag } from '../args';
import { runPreviewBench } from '../../bench/preview-bench';
import { print, seedOf, type Benchmark } from './types';

export const previewBench: Benchmark = {
  name: 'preview',
  usage: 'preview [--items N --channels M --seed S --keep DIR] [--max-items K]',
  async run(values) {
    const r = await runPreviewBench({
      items: Math.floor(numberFlag(values.items, 'items', 78_000)), channels: Math.floor(numberFlag(values.channels, 'channels', 68)),
      seed: seedOf(values.seed), keepDir: values.keep,
      ...(values['max-items'] !== undefined ? { maxItems: Math.floor(numberFlag(values['max-items'], 'max-items', 78_000)) } : {}),
    });
    print(values, r, () => [
      `${r.items} items in ${r.channels} channels${r.loadMs > 0 ? ` (built in ${r.loadMs} ms)` : ''}; simulated ${r.simulatedItems}${r.scale > 1 ? ` (times ×${r.scale})` : ''}`,
      `preview: ${r.totalMs} ms, ${r.cpuMs} ms of CPU (scenario ${r.scenarioMs} ms, both trees ${r.runMs} ms); picks ${r.picks.current} / ${r.picks.edited}; end ${r.endS.current} s / ${r.endS.edited} s`,
    ].join('\n'));
  },
};
