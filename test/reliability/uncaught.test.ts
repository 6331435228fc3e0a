// No uncaught error ends the host silently (issue 9, crash 3), on real `backlot serve` processes
// with host faults injected (BACKLOT_TEST_HOST_FAULTS, test engines only). An error that escapes
// while a request is still unanswered is logged with that request, the request is answered with a
// code, and the host keeps serving; an error outside any request stops the host the way SIGTERM
// does (the open run marked interrupted, the lock released) and it exits with one sentence.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ApiError, killAll, openDb, removeTempDirs, serve, until } from './fixtures/host';
import { createFixtureLibrary, type FixtureLibrary } from '../shells/library-fixture';

const libraries: FixtureLibrary[] = [];
afterEach(() => killAll());
afterAll(() => {
  removeTempDirs();
  for (const l of libraries) l.remove();
});

function library(): FixtureLibrary {
  const lib = createFixtureLibrary(2);
  libraries.push(lib);
  return lib;
}

describe('an error that escapes while answering a request', () => {
  it.each(['uncaught', 'rejection'] as const)('(%s) is answered with INTERNAL and logged with the request; the host keeps serving', async (fault) => {
    const lib = library();
    const host = await serve(lib.dataDir, { env: { BACKLOT_TEST_HOST_FAULTS: JSON.stringify({ 'lanes.list': fault }) } });
    const refused = await host.call('lanes.list').then(() => null, (e: unknown) => e as ApiError);
    expect(refused).toBeInstanceOf(ApiError);
    expect({ status: refused!.status, code: refused!.code }).toEqual({ status: 500, code: 'INTERNAL' });
    expect(refused!.message).toBe("INTERNAL: Backlot failed while answering lanes.list; the details are in the host's log.");
    const logged = host.stderr().split('\n').filter((l) => l.startsWith('backlot: internal error'));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(new RegExp(`^backlot: internal error in request \\d+ \\(lanes\\.list\\): Error: test fault \\(${fault}\\) in lanes\\.list \\(at .+\\)$`));
    expect(host.stderr()).not.toMatch(/^\s+at /m); // no stack trace unless BACKLOT_DEBUG is set

    // Still the same process, still answering, more than once.
    for (let i = 0; i < 3; i++) {
      expect(await host.call<{ channels: unknown[] }>('library.list')).toMatchObject({ channels: [expect.anything()] });
      await expect(host.call('lanes.list')).rejects.toMatchObject({ code: 'INTERNAL' });
    }
    expect(host.proc.exitCode).toBeNull();
    expect(await host.stop()).toBe(0);
  });
});

describe('an error outside any request or run', () => {
  it('stops the host cleanly: the open run is marked interrupted, the lock released, and it exits 70 with one sentence', async () => {
    const lib = library();
    // Slow test engines (4 chunks of 1.5 s), so a run is open when the fault lands.
    const host = await serve(lib.dataDir, { chunkMs: 1500, env: { BACKLOT_TEST_HOST_FAULTS: JSON.stringify({ 'runs.lastPerJob': 'detached' }) } });
    const running = await until('a running run', async () => {
      const { runs } = await host.call<{ runs: { id: number; outcome: string }[] }>('runs.list');
      return runs.find((r) => r.outcome === 'running');
    }, 30_000);

    // The request itself is answered; the error comes after, from a callback of no request.
    await host.call('runs.lastPerJob');
    const exit = await host.exited;
    expect(exit).toEqual({ code: 70, signal: null });

    const lines = host.stderr().trim().split('\n');
    expect(lines.at(-2)).toMatch(/^backlot: internal error outside any request or run: Error: test fault \(detached\) in runs\.lastPerJob \(at .+\)$/);
    expect(lines.at(-1)).toBe('backlot: INTERNAL: Backlot stopped after an unexpected error outside any request or run; the runs that were open are marked interrupted.');

    const db = openDb(lib.dataDir);
    try {
      const run = db.prepare('SELECT outcome, reason_code AS code, ended_at AS endedAt FROM runs WHERE id = ?').get(running.id) as { outcome: string; code: string; endedAt: number | null };
      expect(run).toMatchObject({ outcome: 'interrupted', code: 'HOST_STOPPED' });
      expect(run.endedAt).not.toBeNull();
      expect(db.prepare("SELECT COUNT(*) AS n FROM runs WHERE outcome = 'running'").get()).toEqual({ n: 0 });
      expect(db.prepare('SELECT COUNT(*) AS n FROM claims').get()).toEqual({ n: 0 });
      expect(db.prepare('SELECT COUNT(*) AS n FROM dispatcher_lock').get()).toEqual({ n: 0 });
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }

    // And the library opens again at once: no lock to wait for, nothing to sweep.
    const again = await serve(lib.dataDir);
    expect(await again.call<{ channels: unknown[] }>('library.list')).toMatchObject({ channels: [expect.anything()] });
    expect(await again.stop()).toBe(0);
  });
});
