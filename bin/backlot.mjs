#!/usr/bin/env node
// The `backlot` command: runs the built CLI (out/main/cli.js), never TypeScript at run time. A
// checkout whose sources, configuration or installed packages changed since the last build is
// rebuilt first, once, so the command always runs the code as it is (docs/desktop.md "One runtime").
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { ROOT, build, staleReason } from '../scripts/build-state.mjs';

const reason = staleReason();
if (reason !== null) {
  process.stderr.write(`backlot: building first (${reason}); this takes a minute once.\n`);
  try {
    build({ output: 'quiet', onlyIfStale: true });
  } catch (e) {
    process.stderr.write(`backlot: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
}
await import(pathToFileURL(path.join(ROOT, 'out', 'main', 'cli.js')).href);
