// `npm run build`: the desktop app's three parts, the `backlot` command and every engine program
// (electron.vite.config.ts), stamped so bin/backlot.mjs and the tests know the build is current.
import { build } from './build-state.mjs';

try {
  build({ output: 'inherit' });
} catch (e) {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
