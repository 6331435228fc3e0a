// Acquisition's benchmarks: engine overhead per unit, a loopback download against curl, a large
// feed's sync (docs/benchmarks.md "Acquisition").
import { numberFlag } from '../args';
import { benchDownload, benchFeedSync, benchOverhead } from '../../bench/acquisition-bench';
import { print, type Benchmark } from './types';

export const engineOverheadBench: Benchmark = {
  name: 'engine-overhead',
  usage: 'engine-overhead [--items N]',
  async run(values) {
    const r = await benchOverhead(Math.floor(numberFlag(values.items, 'items', 20)));
    print(values, r, () => `trivial engine unit (spawn, protocol, commit) over ${r.units} units: cold median ${r.coldMedianMs} ms (p90 ${r.coldP90Ms}${r.coldChildCpuMs !== null ? `; the engine's CPU ${r.coldChildCpuMs} ms a unit` : ''}), warm worker median ${r.warmMedianMs} ms (p90 ${r.warmP90Ms})`);
  },
};

export const downloadBench: Benchmark = {
  name: 'download',
  usage: 'download [--mb N]',
  async run(values) {
    const r = await benchDownload(Math.floor(numberFlag(values.mb, 'mb', 1024)) * 1024 * 1024);
    print(values, r, () => `${r.bytes} bytes over loopback, ${r.rounds} rounds each: direct engine ${r.engineMBps} MiB/s, curl ${r.curlMBps} MiB/s, ratio ${r.ratio} (engine ${r.engineSeconds.join(', ')} s; curl ${r.curlSeconds.join(', ')} s)`);
  },
};

export const feedSyncBench: Benchmark = {
  name: 'feed-sync',
  usage: 'feed-sync [--items N]',
  async run(values) {
    const r = await benchFeedSync(Math.floor(numberFlag(values.items, 'items', 5000)));
    print(values, r, () => `${r.entries}-entry feed (${r.feedBytes} bytes): fetch and parse in the engine ${r.engineMs} ms, applied to the library ${r.applyMs} ms, total ${r.totalMs} ms; a re-sync's apply ${r.resyncApplyMs} ms`);
  },
};
