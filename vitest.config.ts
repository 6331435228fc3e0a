import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // Timeouts guard against a hang, never measure speed (docs/benchmarks.md "Test command"): CI machines are
    // sometimes loaded several times over, and CPU-bound tests (speaker embeddings, real engines)
    // then take several times their quiet length.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // Two test files at once even on two cores (vitest's default there is one): most of a file's
    // time is spent waiting on the processes it starts (engines, serve, workers, redis-server,
    // Chromium), so a second file uses what the first leaves idle (docs/benchmarks.md "Test command").
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // The command and the engines run from the build: rebuilt first when a source is newer.
    globalSetup: ['test/global-setup.ts'],
    // Every remembered "best ready row" is checked against the index on every use (candidate-memo.ts).
    // Engines run at the host's priority, not the default low: beside the suite's own busy processes
    // an engine at nice 19 would crawl (engine-priority.ts; the priority's own tests unset it).
    env: { BACKLOT_VERIFY_CANDIDATES: '1', BACKLOT_TEST_ENGINE_PRIORITY: 'normal' },
  },
});
