// `npm run build`: the desktop app's three parts, the `backlot` command and every engine program
// (electron.vite.config.ts), stamped so bin/backlot.mjs and the tests know the build is current.
// `--if-stale` (scripts/start.sh) builds only when the sources differ from the stamped build.
import { build, staleReason } from './build-state.mjs';

try {
  const onlyIfStale = process.argv.includes('--if-stale');
  if (onlyIfStale && staleReason() === null) console.log('The build is current: skipping it.');
  else build({ output: 'inherit', onlyIfStale });
} catch (e) {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
