// The benchmarks of `backlot bench`, one line each (docs/benchmarks.md gives each one's figures).
import type { Benchmark } from './types';
import { pipelineBench, simBench, snapshotBench, snapshotHostBench, uploadsBench } from './rule-engine';
import { downloadBench, engineOverheadBench, feedSyncBench } from './acquisition';
import { speakersBench } from './speakers';
import { digestBench } from './digest';
import { loadBench } from './load';
import { searchBench } from './search';
import { transcribeBench } from './transcribe';
import { windowBench } from './window';
import { cliBench } from './cli';
import { poolsBench } from './pools';
import { previewBench } from './preview';

export const BENCHMARKS: readonly Benchmark[] = [
  snapshotBench,
  snapshotHostBench,
  simBench,
  uploadsBench,
  pipelineBench,
  engineOverheadBench,
  downloadBench,
  feedSyncBench,
  speakersBench,
  digestBench,
  loadBench,
  searchBench,
  transcribeBench,
  windowBench,
  cliBench,
  poolsBench,
  previewBench,
];
