import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The command and the engines run from the build: rebuilt first when a source is newer.
    globalSetup: ['test/global-setup.ts'],
    // Every remembered "best ready row" is checked against the index on every use (candidate-memo.ts).
    env: { BACKLOT_VERIFY_CANDIDATES: '1' },
  },
});
