// The window's benchmark (docs/benchmarks.md "The window"): list reads, first load and renderer
// size, scrolling 78,000 items in Chromium, and a host progress event to the screen.
import { numberFlag } from '../args';
import { runWindowBench } from './window-bench';
import { print, type Benchmark } from './types';

export const windowBench: Benchmark = {
  name: 'window',
  usage: 'window [--items N] [--channels M]',
  async run(values) {
    const r = await runWindowBench({ items: Math.floor(numberFlag(values.items, 'items', 78_000)), channels: Math.floor(numberFlag(values.channels, 'channels', 68)), frames: 1200, samples: 200 });
    const kb = (b: number) => `${Math.round(b / 1024)} KiB`;
    print(values, r, () => [
      `${r.items} items; ${r.machine.cpus} × ${r.machine.cpuModel}, ${r.machine.memoryGb} GB; Chromium ${r.machine.chromium}`,
      ...Object.entries(r.reads).map(([k, v]) => `read ${k.padEnd(34)} p50 ${v.p50Ms} ms, p95 ${v.p95Ms} ms`),
      `first load to the first row: p50 ${r.firstLoad.p50Ms} ms (${r.firstLoad.loads.join(', ')})`,
      `renderer: ${kb(r.renderer.totalBytes)} (${kb(r.renderer.totalGzipBytes)} gzip); first load ${kb(r.renderer.firstLoadBytes)} (${kb(r.renderer.firstLoadGzipBytes)} gzip)`,
      `scroll: ${r.scroll.frames} frames over ${r.scroll.rowsScrolled} rows: p50 ${r.scroll.p50Ms} ms, p95 ${r.scroll.p95Ms} ms, max ${r.scroll.maxMs} ms; JS heap ${r.scroll.jsHeapMb} MB, ${r.scroll.domNodes} DOM nodes`,
      `host progress event to the screen: p50 ${r.eventToScreen.p50Ms} ms, p95 ${r.eventToScreen.p95Ms} ms, max ${r.eventToScreen.maxMs} ms over ${r.eventToScreen.samples}`,
    ].join('\n'));
  },
};
