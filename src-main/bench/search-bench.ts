// The search benchmark (issue 11's figure): a generated library of transcripts indexed through the
// real indexTranscript, one transaction per batch of items as commits would make it, then a fixed,
// seeded mix of the searches people type — words, two words, phrases, prefixes, a channel or a
// speaker filter — timed one by one through searchTranscripts. docs/benchmarks.md has the figures.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Host } from '../host/host';
import { VirtualClock } from '../system/clock';
import { generateCorpus } from '../../src-shared/corpus/generate';
import { generateTranscript, transcriptVocabulary, type TranscriptVocabulary } from '../../src-shared/corpus/transcripts';
import { mulberry32 } from '../../src-shared/corpus/random';
import type { TranscriptRecord } from '../../src-shared/transcript/record';
import { indexTranscript } from '../transcripts/search-index';
import { RANK_WINDOW, searchExpression, searchTranscripts } from '../transcripts/search';
import { loadCorpus } from './load-corpus';
import { referenceSearch } from './search-reference';
import { classRankCounts } from '../transcripts/search-rank';
import type { GeneratedChannel } from '../../src-shared/corpus/generate';
import { round } from './snapshot-measure';
import { BacklotError } from '../../src-shared/errors';

export interface SearchBenchSpec {
  items: number;
  channels: number;
  /** Most segments a transcript has (its media's length decides below that). */
  segments: number;
  /** Searches per kind. */
  queries: number;
  seed?: number;
  /** Keep the library in this folder instead of a temporary one. */
  keepDir?: string;
  /** Measure the library a run with the same spec kept in `keepDir` instead of building it again. */
  reuse?: boolean;
  /** Also run every search the way it ran before the pair index (search-reference.ts) and count the answers that differ. */
  compare?: boolean;
}

export const QUERY_KINDS = ['word', 'two-words', 'phrase', 'prefix', 'channel', 'speaker'] as const;
export type QueryKind = (typeof QUERY_KINDS)[number];

export interface Percentiles { p50Ms: number; p95Ms: number; p99Ms: number; maxMs: number }
/**
 * Wall time, and this process's CPU time, per search. On a machine shared with other work the wall
 * time includes waiting for a core; the CPU time is what one search costs on an idle one.
 */
export interface LatencyFigures {
  queries: number;
  meanHits: number;
  /** Share of the searches that matched more segments than the rank window (ranked among their newest). */
  windowed: number;
  wall: Percentiles;
  cpu: Percentiles;
}

export interface SearchBenchResult {
  items: number;
  channels: number;
  seed: number;
  segments: number;
  words: number;
  buildMs: number;
  /** Bytes on disk: the FTS5 index, the segment rows with their indexes, the whole file. */
  ftsMb: number;
  /** The word-pair index (phrases). */
  pairsMb: number;
  /** The repeats index (ranking one word or prefix by class). */
  repeatsMb: number;
  segmentRowsMb: number;
  databaseMb: number;
  all: LatencyFigures;
  byKind: Record<QueryKind, LatencyFigures>;
  rssMb: number;
  /** With `compare`: the searches whose hits (content or order) differ from the reference's. */
  differing?: number;
  /** Of the timed searches of one word or prefix, how many were ranked by class and how many the usual way (docs/transcripts.md "Ranking by class"). */
  rankedByClass: number;
  rankedUsual: number;
}

export interface BenchQuery { kind: QueryKind; query: string; channel?: string; speaker?: string }
export interface BenchItem { id: string; channel: string; durationS: number }

const BATCH = 500;

/** Every voice is named (by its profile id), as the speakers component would name them. */
const NAMED = (ids: readonly string[]) => Object.fromEntries(ids.map((id) => [id, id]));

/** Speaker profiles of a channel: its two or three regular voices. */
export function channelSpeakers(channelId: string, index: number): string[] {
  return Array.from({ length: 2 + (index % 2) }, (_, k) => `${channelId}-voice-${k + 1}`);
}

function transcriptOf(vocabulary: TranscriptVocabulary, itemId: string, durationS: number, speakers: string[], maxSegments: number): TranscriptRecord {
  return generateTranscript(vocabulary, { key: itemId, durationS, speakers, maxSegments });
}

export function runSearchBench(spec: SearchBenchSpec): SearchBenchResult {
  const seed = spec.seed ?? 1;
  const dir = spec.keepDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-search-bench-'));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'backlot.sqlite');
  const reuse = spec.reuse === true && spec.keepDir !== undefined && fs.existsSync(file);
  if (!reuse) for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
  const host = new Host({ databaseFile: file, clock: new VirtualClock(0), durable: false });
  try {
    const corpus = generateCorpus({ seed, channels: spec.channels, items: spec.items, durationS: { min: 60, max: 3600 } });
    const vocabulary = transcriptVocabulary(60_000, seed);
    const speakersOf = new Map(corpus.map((c, i) => [c.id, channelSpeakers(c.id, i)]));
    const items = corpus.flatMap((c) => c.items.map((it) => ({ id: it.id, channel: c.id, durationS: it.durationS })));
    const built = reuse ? readBuilt(host, spec, seed) : build(host, corpus, items, vocabulary, speakersOf, spec, seed);
    const { segments, words, buildMs } = built;

    const queries = benchQueries(vocabulary, items, speakersOf, spec, seed);
    // Once through unmeasured, so every figure is of a warm page cache as in a running app.
    for (const q of queries) run(host, q);
    const times = new Map<QueryKind, Samples>(QUERY_KINDS.map((k) => [k, { wall: [], cpu: [], hits: 0, windowed: 0 }]));
    const countMatches = host.db.prepare('SELECT count(*) FROM search_fts WHERE search_fts MATCH ?').pluck();
    const counts = { ...classRankCounts(host.searchDb) };
    const timedCounts = () => ({ byClass: classRankCounts(host.searchDb).byClass - counts.byClass, usual: classRankCounts(host.searchDb).usual - counts.usual });
    let ranked = { byClass: 0, usual: 0 };
    for (const q of queries) {
      const cpu = process.cpuUsage();
      const start = performance.now();
      const hits = run(host, q);
      const wall = performance.now() - start;
      const used = process.cpuUsage(cpu);
      const entry = times.get(q.kind)!;
      entry.wall.push(wall);
      entry.cpu.push((used.user + used.system) / 1000);
      entry.hits += hits;
      if ((countMatches.get(searchExpression(host.db, q.query, q)) as number) > RANK_WINDOW) entry.windowed++;
    }
    ranked = timedCounts();
    // Untimed: each answer against the reference's, hit for hit (docs/benchmarks.md "Search").
    const differing = spec.compare ? queries.filter((q) => JSON.stringify(referenceSearch(host.db, q.query, { channel: q.channel, speaker: q.speaker, limit: 20 }))
      !== JSON.stringify(searchTranscripts(host.searchDb, q.query, { channel: q.channel, speaker: q.speaker, limit: 20 }))).length : undefined;
    const size = (like: string) => (host.db.prepare('SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name LIKE ?').pluck().get(like) as number) / 2 ** 20;
    const byKind = Object.fromEntries(QUERY_KINDS.map((k) => [k, figures(times.get(k)!)])) as Record<QueryKind, LatencyFigures>;
    const all: Samples = { wall: [], cpu: [], hits: 0, windowed: 0 };
    for (const k of QUERY_KINDS) {
      all.wall.push(...times.get(k)!.wall);
      all.cpu.push(...times.get(k)!.cpu);
      all.hits += times.get(k)!.hits;
      all.windowed += times.get(k)!.windowed;
    }
    return {
      items: items.length, channels: corpus.length, seed, segments, words, buildMs: round(buildMs, 0),
      ftsMb: round(size('search_fts%'), 1), pairsMb: round(size('search_pairs%'), 1), repeatsMb: round(size('search_repeats%'), 1), segmentRowsMb: round(size('search_segments%'), 1), databaseMb: round(fs.statSync(file).size / 2 ** 20, 1),
      all: figures(all), byKind, rssMb: round(process.memoryUsage().rss / 2 ** 20, 1), rankedByClass: ranked.byClass, rankedUsual: ranked.usual,
      ...(differing === undefined ? {} : { differing }),
    };
  } finally {
    host.close();
    if (!spec.keepDir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

interface Built { segments: number; words: number; buildMs: number }

/** Indexes every item's transcript, BATCH items per transaction, and notes what it built in the file. */
function build(host: Host, corpus: GeneratedChannel[], items: BenchItem[], vocabulary: TranscriptVocabulary, speakersOf: Map<string, string[]>, spec: SearchBenchSpec, seed: number): Built {
  loadCorpus(host, corpus, 0);
  const t0 = performance.now();
  let segments = 0;
  let words = 0;
  for (let i = 0; i < items.length; i += BATCH) {
    host.transaction(() => {
      for (const it of items.slice(i, i + BATCH)) {
        const record = transcriptOf(vocabulary, it.id, it.durationS, speakersOf.get(it.channel)!, spec.segments);
        segments += indexTranscript(host, it.id, record, { operation: 'transcribe', path: null }, { names: NAMED }).segments;
        for (const s of record.segments) words += s.words.length;
      }
    });
  }
  const built = { segments, words, buildMs: performance.now() - t0 };
  host.db.exec('CREATE TABLE bench_built (spec TEXT NOT NULL, built TEXT NOT NULL)');
  host.db.prepare('INSERT INTO bench_built VALUES (?, ?)').run(specKey(spec, seed), JSON.stringify(built));
  host.db.pragma('wal_checkpoint(TRUNCATE)');
  return built;
}

function specKey(spec: SearchBenchSpec, seed: number): string {
  return JSON.stringify({ items: spec.items, channels: spec.channels, segments: spec.segments, seed });
}

function readBuilt(host: Host, spec: SearchBenchSpec, seed: number): Built {
  const row = host.db.prepare('SELECT spec, built FROM bench_built').get() as { spec: string; built: string } | undefined;
  if (!row || row.spec !== specKey(spec, seed)) {
    throw new BacklotError('BENCH_REUSE_MISMATCH', `The library kept there was built for ${row?.spec ?? 'nothing'}, not ${specKey(spec, seed)}; run without --reuse to build it.`);
  }
  return JSON.parse(row.built) as Built;
}

function run(host: Host, q: BenchQuery): number {
  return searchTranscripts(host.searchDb, q.query, { channel: q.channel, speaker: q.speaker, limit: 20 }).length;
}

interface Samples { wall: number[]; cpu: number[]; hits: number; windowed: number }

function percentiles(ms: number[]): Percentiles {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0;
  return { p50Ms: round(at(0.5), 3), p95Ms: round(at(0.95), 3), p99Ms: round(at(0.99), 3), maxMs: round(sorted.at(-1) ?? 0, 3) };
}

function figures(s: Samples): LatencyFigures {
  const n = s.wall.length;
  return { queries: n, meanHits: round(n ? s.hits / n : 0, 1), windowed: round(n ? s.windowed / n : 0, 3), wall: percentiles(s.wall), cpu: percentiles(s.cpu) };
}

/**
 * What people search for: words they heard. Each search is drawn from a random indexed segment
 * (so common words are searched as often as they are spoken), skipping the function words nobody
 * searches alone; phrases keep them, as spoken phrases do.
 */
export function benchQueries(vocabulary: TranscriptVocabulary, items: BenchItem[], speakersOf: Map<string, string[]>, spec: SearchBenchSpec, seed: number): BenchQuery[] {
  const rand = mulberry32(seed ^ 0x5eed);
  const rank = new Map(vocabulary.words.map((w, i) => [w, i]));
  const content = (w: string) => (rank.get(w) ?? 0) >= vocabulary.functionWords;
  const out: BenchQuery[] = [];
  for (const kind of QUERY_KINDS) {
    let made = 0;
    while (made < spec.queries) {
      const item = items[Math.floor(rand() * items.length)];
      const record = transcriptOf(vocabulary, item.id, item.durationS, speakersOf.get(item.channel)!, spec.segments);
      if (record.segments.length === 0) continue;
      const segment = record.segments[Math.floor(rand() * record.segments.length)];
      const ws = segment.words.map((w) => w.w);
      const contentWords = ws.filter(content);
      const pick = (list: string[]) => list[Math.floor(rand() * list.length)];
      let q: BenchQuery | null = null;
      switch (kind) {
        case 'word':
          if (contentWords.length > 0) q = { kind, query: pick(contentWords) };
          break;
        case 'two-words':
          if (contentWords.length > 1) {
            const a = pick(contentWords);
            const b = pick(contentWords.filter((w) => w !== a));
            if (b) q = { kind, query: `${a} ${b}` };
          }
          break;
        case 'phrase': {
          const n = 2 + Math.floor(rand() * 2);
          if (ws.length >= n) {
            const at = Math.floor(rand() * (ws.length - n + 1));
            const phrase = ws.slice(at, at + n);
            if (phrase.some(content)) q = { kind, query: `"${phrase.join(' ')}"` };
          }
          break;
        }
        case 'prefix': {
          // What people type before the star: three to six letters of a longer word.
          const letters = 3 + Math.floor(rand() * 4);
          const long = contentWords.filter((w) => w.length > letters);
          if (long.length > 0) q = { kind, query: `${pick(long).slice(0, letters)}*` };
          break;
        }
        case 'channel':
          if (contentWords.length > 0) q = { kind, query: pick(contentWords), channel: item.channel };
          break;
        case 'speaker':
          if (contentWords.length > 0 && segment.speaker !== null) q = { kind, query: pick(contentWords), speaker: segment.speaker };
          break;
        default: {
          const never: never = kind;
          throw new Error(`unknown query kind ${String(never)}`);
        }
      }
      if (q) {
        out.push(q);
        made++;
      }
    }
  }
  return out;
}
