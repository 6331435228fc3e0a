// The tests run the built command and engines (docs/desktop.md "One runtime"), so the build must
// be the build of these sources: made here when it is missing or older than any source, as
// scripts/test.sh's `npm run build` already made it for a whole run.
import { build, staleReason } from '../scripts/build-state.mjs';

export default function setup(): void {
  const reason = staleReason();
  if (reason === null) return;
  process.stderr.write(`vitest: building first (${reason})\n`);
  build({ output: 'quiet', onlyIfStale: true });
}
