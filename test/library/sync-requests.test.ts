// A sync asked for while one of the same channel runs is not swallowed by that run's end: the
// running scan may have read the folder before the change (docs/acquisition.md "Folders"). Driven
// by explicit times, the way the watcher and the unit's end call the repository.
import { afterAll, describe, expect, it } from 'vitest';
import { addChannel, openHost, removeTempDirs, tempDir } from '../transcripts/fixtures/library';

afterAll(() => removeTempDirs());

const INTERVAL_S = 3600;

function library() {
  const host = openHost(tempDir('sync-requests'));
  addChannel(host, 'watched', 'Watched');
  host.transaction(() => host.db.prepare('UPDATE channels SET sync_interval_s = ? WHERE id = ?').run(INTERVAL_S, 'watched'));
  host.transaction(() => host.library.markSynced('watched', 1000));
  const due = (now: number) => host.library.channel('watched')!.last_sync_at! <= now - INTERVAL_S;
  return { host, due };
}

describe('a sync requested while one runs', () => {
  it('leaves the channel due again when the running sync ends, so the next scan sees the change', () => {
    const { host, due } = library();
    expect(due(1001)).toBe(false);
    // The sync starts at 1100; a file is deleted and the watcher asks at 1150; the sync ends at 1200.
    host.transaction(() => host.library.requestSync('watched', 1150));
    expect(due(1150)).toBe(true);
    host.transaction(() => host.library.markSynced('watched', 1200, 1100));
    expect(due(1200)).toBe(true);
    // The next sync began after the request: it saw the change, and the channel rests until its interval.
    host.transaction(() => host.library.markSynced('watched', 1300, 1250));
    expect(due(1300)).toBe(false);
    expect(due(1300 + INTERVAL_S)).toBe(true);
  });

  it('is served by a sync that began after it', () => {
    const { host, due } = library();
    host.transaction(() => host.library.requestSync('watched', 1150));
    host.transaction(() => host.library.markSynced('watched', 1200, 1160));
    expect(due(1200)).toBe(false);
  });

  it('a scan without a unit (the CLI, a pass inside the engine) keeps a pending request for the unit to settle', () => {
    const { host, due } = library();
    host.transaction(() => host.library.requestSync('watched', 1150));
    host.transaction(() => host.library.markSynced('watched', 1190));
    host.transaction(() => host.library.markSynced('watched', 1200, 1100));
    expect(due(1200)).toBe(true);
  });
});
