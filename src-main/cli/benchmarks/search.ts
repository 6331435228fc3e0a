// The search benchmark: latency of each kind of search on 78,000 generated transcripts and the
// index's size (docs/benchmarks.md "Search").
import { numberFlag } from '../args';
import { QUERY_KINDS, runSearchBench } from '../../bench/search-bench';
import { print, seedOf, type Benchmark } from './types';

export const searchBench: Benchmark = {
  name: 'search',
  usage: 'search [--items N --channels M --segments K --queries Q --seed S --keep DIR [--reuse] --compare]',
  run(values) {
    const r = runSearchBench({
      items: Math.floor(numberFlag(values.items, 'items', 78_000)), channels: Math.floor(numberFlag(values.channels, 'channels', 68)),
      segments: Math.floor(numberFlag(values.segments, 'segments', 40)), queries: Math.floor(numberFlag(values.queries, 'queries', 500)),
      seed: seedOf(values.seed), keepDir: values.keep, reuse: values.reuse === true, compare: values.compare === true,
    });
    print(values, r, () => [
      `${r.items} transcripts in ${r.channels} channels (seed ${r.seed}): ${r.segments} segments, ${r.words} words, indexed in ${r.buildMs} ms`,
      `index: FTS5 ${r.ftsMb} MB, pairs ${r.pairsMb} MB, repeats ${r.repeatsMb} MB, segment rows ${r.segmentRowsMb} MB, database ${r.databaseMb} MB; RSS ${r.rssMb} MB`,
      `all ${r.all.queries} searches (${Math.round(r.all.windowed * 100)} % matched more than the rank window): CPU p50 ${r.all.cpu.p50Ms} ms, p95 ${r.all.cpu.p95Ms} ms, p99 ${r.all.cpu.p99Ms} ms, max ${r.all.cpu.maxMs} ms; wall p99 ${r.all.wall.p99Ms} ms`,
      ...QUERY_KINDS.map((k) => `  ${k.padEnd(10)} CPU p50 ${r.byKind[k].cpu.p50Ms} ms, p99 ${r.byKind[k].cpu.p99Ms} ms, max ${r.byKind[k].cpu.maxMs} ms; wall p99 ${r.byKind[k].wall.p99Ms} ms (${r.byKind[k].meanHits} hits)`),
      `one-word and prefix searches ranked by class: ${r.rankedByClass}, the usual way: ${r.rankedUsual}`,
      ...(r.differing === undefined ? [] : [`compared with the search before the pair index: ${r.differing} of ${r.all.queries} answers differ`]),
    ].join('\n'));
  },
};
