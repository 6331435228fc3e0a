// The crash test (issue 4 item 9), with real processes: a folder library of real media added
// through the CLI, `backlot serve --engines test` killed with SIGKILL at 30+ instants drawn from a
// seeded PRNG (during startup and the sweep, while engines write, and inside output commits, found
// by watching for the commit journal; each kill waits for its drawn share of the run to be done and
// then for its event, never for a time, so they spread over all of it at any machine's pace),
// restarted each time, then run to the end. Checked against
// an uninterrupted reference run of the same library: no finished output lost, none committed
// twice (per run, exactly), an intact database, every cut run `interrupted` with HOST_STOPPED,
// no temporary output left, the same final snapshot, and dispatch back after every restart (how
// soon is a printed figure, never an assertion). docs/reliability.md quotes the figures.
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import {
  addFolder, allDone, backlot, killAll, makeMediaFolder, openDb, prng, removeTempDirs, serve, sleep, tempDir, until,
  type Served, type Snapshot,
} from './fixtures/host';
import { makeSpeech } from '../acquisition/fixtures';
import { downloadsDone, expectDownloadsIntact, gatedFeedLibrary } from './fixtures/feed';

const SEED = 20240604;
const FILES = 8;
const ITEM_OPERATIONS = 5; // transcribe, diarize, attribute-voices, attribute-words, digest (download is the folder's own file)
const KILLS = 32;
const CHUNK_MS = 40;
const TEST_BYTES = 4096; // the test profile's default output: 4 chunks of 1024 bytes, 'a' to 'd'
const TEMP = '.backlot-tmp';
const JOURNAL = '.commit-journal.json';

afterEach(() => killAll());
afterAll(() => removeTempDirs());

/** What the test engine writes for one job: chunk i is filled with the letter 'a' + i. */
function expectedOutput(): Buffer {
  return Buffer.concat([0, 1, 2, 3].map((i) => Buffer.alloc(TEST_BYTES / 4, 0x61 + i)));
}

interface DbState { maxRunId: number; itemsDone: number; outputs: number; running: number[] }

function state(db: Database.Database): DbState {
  const r = db.prepare('SELECT COALESCE(MAX(id), 0) AS maxRunId, COALESCE(SUM(items_done), 0) AS itemsDone FROM runs').get() as { maxRunId: number; itemsDone: number };
  const outputs = (db.prepare('SELECT COUNT(*) AS n FROM work WHERE output_job IS NOT NULL').get() as { n: number }).n;
  const running = (db.prepare("SELECT id FROM runs WHERE outcome = 'running' ORDER BY id").all() as { id: number }[]).map((x) => x.id);
  return { ...r, outputs, running };
}

function journalPresent(dataDir: string): boolean {
  const root = path.join(dataDir, TEMP);
  let names: string[];
  try { names = fs.readdirSync(root); } catch { return false; }
  return names.some((n) => fs.existsSync(path.join(root, n, JOURNAL)));
}

/** The jobs whose commit a kill interrupted (their journal is still there), and whether each got recorded. */
function interruptedCommits(dataDir: string, db: Database.Database): { recorded: number; unrecorded: number } {
  const recorded = db.prepare('SELECT 1 FROM work WHERE output_job = ?');
  const out = { recorded: 0, unrecorded: 0 };
  for (const name of tempEntries(dataDir)) {
    if (!fs.existsSync(path.join(dataDir, TEMP, name, JOURNAL))) continue;
    if (recorded.get(name)) out.recorded++;
    else out.unrecorded++;
  }
  return out;
}

function tempEntries(dataDir: string): string[] {
  try { return fs.readdirSync(path.join(dataDir, TEMP)); } catch { return []; }
}

/**
 * Waits until a run opened after `before` shows up or an output lands (dispatch resumed); the ms
 * after the URL line, as a figure. The bound only guards against a hang: it measures nothing.
 */
async function resumeMs(db: Database.Database, served: Served, before: DbState): Promise<number> {
  const q = db.prepare('SELECT COALESCE(MAX(id), 0) AS id, COALESCE(SUM(items_done), 0) AS done FROM runs');
  await until('dispatch to resume after a restart', () => {
    const r = q.get() as { id: number; done: number };
    return r.id > before.maxRunId || r.done > before.itemsDone ? true : undefined;
  }, 120_000, 2);
  return Math.max(0, performance.now() - served.urlAt);
}

/**
 * Kills at an event, never after a time: `land()` says the moment has come (an engine is writing,
 * a commit's journal is there), and the kill lands at the latest when one more output than the
 * target has been committed. However fast or slow the machine, a life ends within a couple of
 * outputs of its target (the test engine takes at least 4 chunks x CHUNK_MS per output), so the
 * 32 kills always land before the work is done.
 */
async function killAt(db: Database.Database, served: Served, target: number, land: () => boolean): Promise<void> {
  await until(`${target} outputs`, () => (state(db).outputs >= target ? true : undefined), 120_000, 2);
  // Short synchronous bursts of looking between yields: a commit's journal lives a few milliseconds.
  const hang = performance.now() + 120_000;
  for (;;) {
    const burstEnd = performance.now() + 20;
    let now = false;
    while (!now && performance.now() < burstEnd) now = land();
    if (now || state(db).outputs > target) break;
    if (performance.now() > hang) throw new Error(`no kill moment within 120 s after ${target} outputs`);
    await sleep(0);
  }
  await served.kill9();
}

/** An engine is mid-write: a temporary output exists and is not complete yet. */
function engineWriting(dataDir: string): boolean {
  for (const name of tempEntries(dataDir)) {
    try {
      for (const f of fs.readdirSync(path.join(dataDir, TEMP, name))) {
        const size = fs.statSync(path.join(dataDir, TEMP, name, f)).size;
        if (f.endsWith('.bin') && size > 0 && size < TEST_BYTES) return true;
      }
    } catch {
      // The job finished and its folder went away between the two reads.
    }
  }
  return false;
}

/** Runs the library until all its work is done and no run is open, then stops it cleanly. */
async function runToEnd(served: Served, db: Database.Database): Promise<Snapshot> {
  await until('all work done', async () => {
    const s = await served.call<Snapshot>('snapshot.get');
    return allDone(s) && state(db).running.length === 0 ? s : undefined;
  }, 120_000, 100);
  const snap = await served.call<Snapshot>('snapshot.get');
  expect(await served.stop()).toBe(0);
  return snap;
}

interface WorkRow { operation: string; item_id: string; state: string; output_path: string | null; output_bytes: number | null; output_job: string | null; attempts: number; deferral_kind: string | null }

function workRows(db: Database.Database): WorkRow[] {
  return db.prepare('SELECT operation, item_id, state, output_path, output_bytes, output_job, attempts, deferral_kind FROM work ORDER BY operation, item_id').all() as WorkRow[];
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };

describe('crash test: kill -9 the host at 30+ instants', () => {
  it('loses no finished output, commits none twice, and ends where an uninterrupted run ends', async () => {
    const media = makeMediaFolder(FILES);
    const data = tempDir('crash');
    addFolder(data, media);
    const refData = tempDir('reference');
    fs.cpSync(data, refData, { recursive: true });
    const expectedOutputs = FILES * ITEM_OPERATIONS;

    // ---- the reference: the same library, never interrupted
    const refDb = openDb(refData);
    const refStarted = performance.now();
    const refSnap = await runToEnd(await serve(refData, { chunkMs: CHUNK_MS }), refDb);
    const refSeconds = (performance.now() - refStarted) / 1000;
    const refWork = workRows(refDb);
    refDb.close();

    // ---- the crash run
    const rand = prng(SEED);
    // The schedule: for each kill, how many outputs must be committed before it may land, so the
    // kills spread over the whole run (sorted uniform draws), and how it lands.
    // The last targets stay 4 outputs short of the end: each life overshoots its target by at most one or two.
    const schedule = Array.from({ length: KILLS }, () => Math.floor(rand() * (expectedOutputs - 4))).sort((a, b) => a - b);
    const db = openDb(data);
    const kills: { mode: string; progress: number; cutRuns: number[]; commits: { recorded: number; unrecorded: number }; pendingTemp: number }[] = [];
    const spawnToUrl: number[] = [];
    const resumes: number[] = [];
    const cutRuns = new Set<number>();
    let lives = 0;
    while (kills.length < KILLS) {
      const before = state(db);
      const target = schedule[kills.length];
      const roll = rand();
      const mode = roll < 0.15 ? 'startup' : roll < 0.6 ? 'running' : 'commit';
      const startupKill = Math.floor(rand() * 1500);
      lives++;
      let earlyKill: NodeJS.Timeout | undefined;
      let served: Served | undefined;
      const spawned = serve(data, {
        chunkMs: CHUNK_MS,
        // A startup kill lands at a random instant while the host starts (loading, opening, the
        // lock, the sweep, the first fill), and at the latest when it says it is ready.
        onSpawn: (proc) => { if (mode === 'startup') earlyKill = setTimeout(() => proc.kill('SIGKILL'), startupKill); },
      });
      try {
        served = await spawned;
      } catch {
        // Killed before it printed its URL: a crash during startup.
      }
      if (served) {
        spawnToUrl.push(served.urlAt - served.spawnedAt);
        // The sweep ran before the URL was printed: what the last kill cut is marked, its temp outputs are gone.
        for (const id of before.running) {
          expect(db.prepare('SELECT outcome, reason_code FROM runs WHERE id = ?').get(id)).toEqual({ outcome: 'interrupted', reason_code: 'HOST_STOPPED' });
        }
        for (const name of tempEntries(data)) expect(Number(name.split('-')[0])).toBeGreaterThan(before.maxRunId);
        if (mode === 'startup') {
          await served.kill9();
        } else {
          resumes.push(await resumeMs(db, served, before));
          await killAt(db, served, target, mode === 'commit' ? () => journalPresent(data) : () => engineWriting(data));
        }
      }
      clearTimeout(earlyKill);
      const after = state(db);
      for (const id of after.running) cutRuns.add(id);
      kills.push({
        mode, progress: after.outputs / expectedOutputs,
        cutRuns: after.running, commits: interruptedCommits(data, db), pendingTemp: tempEntries(data).length,
      });
    }

    // ---- the last start: run to the end and stop cleanly
    const before = state(db);
    const last = await serve(data, { chunkMs: CHUNK_MS });
    if (before.outputs < expectedOutputs) resumes.push(await resumeMs(db, last, before));
    const finalSnap = await runToEnd(last, db);
    db.close();

    // ---- checks
    const check = openDb(data);
    try {
      expect(kills.length).toBeGreaterThanOrEqual(30);
      // Spread across the run: kills before any output, in the middle, and late.
      const progress = kills.map((k) => k.progress);
      expect(Math.min(...progress)).toBeLessThan(0.25);
      expect(Math.max(...progress)).toBeGreaterThan(0.6);

      expect(check.pragma('integrity_check', { simple: true })).toBe('ok');

      // No finished output lost: every recorded output has its file, of its size, with the engine's bytes.
      const work = workRows(check);
      // Item outputs are each committed exactly once; the channel roll-up (channel-digest) is made
      // again whenever digests land meanwhile, so it is checked by its end state only (below).
      const withOutput = work.filter((w) => w.output_path !== null && w.operation !== 'download' && w.operation !== 'channel-digest');
      expect(withOutput).toHaveLength(expectedOutputs);
      const content = expectedOutput();
      for (const w of withOutput) {
        expect(w.output_bytes, `${w.operation} of ${w.item_id}`).toBe(TEST_BYTES);
        expect(fs.readFileSync(w.output_path!).equals(content), `${w.output_path} holds exactly what the engine wrote`).toBe(true);
      }
      // ...and no file on disk that no record owns (a rolled-back commit leaves nothing behind).
      const files = fs.readdirSync(path.join(data, 'outputs'), { recursive: true, withFileTypes: true }).filter((d) => d.isFile() && !d.parentPath.endsWith('channel-digest'));
      expect(files).toHaveLength(expectedOutputs);
      expect(work.filter((w) => w.operation === 'channel-digest').map((w) => w.state)).toEqual(['done']);

      // None committed twice: each run's items_done is exactly the outputs whose job it ran, and the
      // sum over all runs is exactly the number of (item, operation) outputs.
      const allRuns = check.prepare('SELECT id, operation, outcome, reason_code, ended_at, items_done, items_failed FROM runs ORDER BY id').all() as
        { id: number; operation: string; outcome: string; reason_code: string | null; ended_at: number | null; items_done: number; items_failed: number }[];
      const runs = allRuns.filter((r) => r.operation !== 'channel-digest');
      const byRun = new Map<number, number>();
      for (const w of withOutput) {
        const runId = Number(w.output_job!.split('-')[0]);
        byRun.set(runId, (byRun.get(runId) ?? 0) + 1);
      }
      for (const r of runs) expect(r.items_done, `run ${r.id}`).toBe(byRun.get(r.id) ?? 0);
      expect(runs.reduce((s, r) => s + r.items_done, 0)).toBe(expectedOutputs);
      expect(runs.reduce((s, r) => s + r.items_failed, 0)).toBe(0);
      expect(new Set(withOutput.map((w) => w.output_job)).size).toBe(expectedOutputs);

      // No run left running; exactly the runs a kill cut are interrupted, with HOST_STOPPED.
      expect(allRuns.filter((r) => r.outcome === 'running')).toEqual([]);
      const interrupted = allRuns.filter((r) => r.outcome === 'interrupted');
      expect(interrupted.map((r) => r.id).sort((a, b) => a - b)).toEqual([...cutRuns].sort((a, b) => a - b));
      for (const r of interrupted) {
        expect(r.reason_code).toBe('HOST_STOPPED');
        expect(r.ended_at).not.toBeNull();
      }
      expect(allRuns.filter((r) => r.outcome !== 'interrupted').every((r) => r.outcome === 'succeeded')).toBe(true);

      // Nothing left in the temporary folder, no claim, no lock.
      expect(tempEntries(data)).toEqual([]);
      expect(check.prepare('SELECT COUNT(*) AS n FROM claims').get()).toEqual({ n: 0 });
      expect(check.prepare('SELECT COUNT(*) AS n FROM dispatcher_lock').get()).toEqual({ n: 0 });

      // The same end as the uninterrupted run: snapshot, and every work row's state and output size.
      expect(finalSnap).toEqual(refSnap);
      const shape = (rows: WorkRow[]) => rows.map((w) => ({ operation: w.operation, item: w.item_id, state: w.state, bytes: w.output_bytes, attempts: w.attempts, deferral: w.deferral_kind }));
      expect(shape(work)).toEqual(shape(refWork));

      expect(resumes.length).toBeGreaterThanOrEqual(20);
      const figures = {
        seed: SEED, files: FILES, outputsChecked: withOutput.length, lives: lives + 1,
        kills: kills.length,
        killsByMode: Object.fromEntries(['startup', 'running', 'commit'].map((m) => [m, kills.filter((k) => k.mode === m).length])),
        killsInsideCommit: kills.filter((k) => k.commits.recorded + k.commits.unrecorded > 0).length,
        interruptedCommitsRecorded: kills.reduce((n, k) => n + k.commits.recorded, 0),
        interruptedCommitsUnrecorded: kills.reduce((n, k) => n + k.commits.unrecorded, 0),
        killsWithUncommittedTempOutput: kills.filter((k) => k.pendingTemp > 0).length,
        runsCut: cutRuns.size, runsTotal: runs.length,
        progressAtKill: { min: Math.min(...progress), median: median(progress), max: Math.max(...progress) },
        resumeMs: { measured: resumes.length, max: Math.round(Math.max(...resumes)), median: Math.round(median(resumes)) },
        spawnToUrlMs: { max: Math.round(Math.max(...spawnToUrl)), median: Math.round(median(spawnToUrl)) },
        referenceRunSeconds: Number(refSeconds.toFixed(1)),
      };
      console.log(`crash test figures: ${JSON.stringify(figures)}`);
    } finally {
      check.close();
    }
  }, 300_000);
});

// The same kill -9 met by the production engines' own commit path (issue 18 §1): the host serving a
// feed library (feed and http engines) is killed while a download is in flight, and again at its
// next start once the downloads run; each restart sweeps, and the run ends with every enclosure
// committed once, byte-identical, the cut runs interrupted, and nothing left behind.
describe('crash test with the production engines', () => {
  it('kill -9 mid-download and at the restart: each download committed once, nothing left behind', { timeout: 300_000 }, async () => {
    const lib = await gatedFeedLibrary(tempDir('production-crash'));
    try {
      const first = await serve(lib.data, { engines: 'production' });
      await until('a download in flight', () => (lib.downloading() ? true : undefined), 60_000, 20);
      await first.kill9();
      lib.open();
      // Killed again as soon as the restarted host has downloaded something.
      const second = await serve(lib.data, { engines: 'production' });
      await until('a download committed after the restart', () => {
        const db = openDb(lib.data);
        try { return (db.prepare("SELECT COUNT(*) FROM work WHERE operation = 'download' AND state = 'done'").pluck().get() as number) > 0 ? true : undefined; } finally { db.close(); }
      }, 60_000, 10);
      await second.kill9();
      const third = await serve(lib.data, { engines: 'production' });
      await until('every download done', () => (downloadsDone(lib.data) ? true : undefined), 120_000, 100);
      await until('no run left open', () => {
        const db = openDb(lib.data);
        try { return (db.prepare("SELECT COUNT(*) FROM runs WHERE outcome = 'running'").pluck().get() as number) === 0 ? true : undefined; } finally { db.close(); }
      }, 60_000, 50);
      expect(await third.stop()).toBe(0);
      const db = openDb(lib.data);
      try {
        // The download cut by the first kill was interrupted by the stop, never failed.
        expect(db.prepare("SELECT COUNT(*) FROM runs WHERE operation = 'download' AND outcome = 'interrupted' AND reason_code = 'HOST_STOPPED'").pluck().get()).toBeGreaterThan(0);
        expect(db.prepare("SELECT COUNT(*) FROM runs WHERE operation = 'download' AND outcome = 'failed'").pluck().get()).toBe(0);
      } finally {
        db.close();
      }
      expectDownloadsIntact(lib);
    } finally {
      await lib.server.close();
    }
  });
});

// Inside a production engine's commit (issue 18 §1): the host kills itself with SIGKILL at the
// commit fence (BACKLOT_TEST_COMMIT_FENCE, units/commit-fence.ts), the same instant the kills above
// look for through the commit journal, but met every time: the outputs renamed into place under
// the journal, and the settle transaction not yet run (before-record) or just committed
// (after-record). Nothing half-written counts as done; after the restart each output is committed
// exactly once, and nothing is lost or left behind.
const FENCE_POINTS = ['before-record', 'after-record'] as const;

function fencedJob(served: Served, action: string, operation: string, point: string): string {
  const m = new RegExp(`commit fence: ${action} ${operation} ${point} (\\S+)`).exec(served.stderr());
  if (!m) throw new Error(`no fence line in stderr: ${served.stderr()}`);
  return m[1];
}

/** The host's exit once it killed itself at its fence; bounded, so a fence never met fails instead of hanging. */
async function killedAtFence(served: Served): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`the host never met its commit fence; stderr: ${served.stderr()}`)), 240_000); });
  try { return await Promise.race([served.exited, bound]); } finally { clearTimeout(timer); }
}

function countOf<T = number>(data: string, sql: string, ...args: unknown[]): T {
  const db = openDb(data);
  try { return db.prepare(sql).pluck().get(...args) as T; } finally { db.close(); }
}

describe('kill -9 inside a production engine commit', () => {
  for (const point of FENCE_POINTS) {
    it(`a download (http engine) killed ${point}: counted done only with its record, committed once after the restart`, { timeout: 300_000 }, async () => {
      const lib = await gatedFeedLibrary(tempDir(`download-${point}`));
      lib.open();
      try {
        const first = await serve(lib.data, { engines: 'production', env: { BACKLOT_TEST_COMMIT_FENCE: `download:${point}:kill` } });
        expect((await killedAtFence(first)).signal).toBe('SIGKILL');
        const job = fencedJob(first, 'kill', 'download', point);
        // Cut inside the commit: the journal is there; the download counts as done only if its record committed.
        expect(fs.existsSync(path.join(lib.data, TEMP, job, JOURNAL))).toBe(true);
        expect(countOf(lib.data, "SELECT COUNT(*) FROM work WHERE operation = 'download' AND state = 'done'")).toBe(point === 'after-record' ? 1 : 0);
        expect(countOf(lib.data, 'SELECT COUNT(*) FROM test_media_writes')).toBe(point === 'after-record' ? 1 : 0);

        const second = await serve(lib.data, { engines: 'production' });
        await until('every download done', () => (downloadsDone(lib.data) ? true : undefined), 120_000, 100);
        await until('no run left open', () => (countOf(lib.data, "SELECT COUNT(*) FROM runs WHERE outcome = 'running'") === 0 ? true : undefined), 60_000, 50);
        expect(await second.stop()).toBe(0);
        expect(countOf(lib.data, "SELECT COUNT(*) FROM runs WHERE operation = 'download' AND outcome = 'failed'")).toBe(0);
        if (point === 'before-record') {
          expect(countOf(lib.data, "SELECT COUNT(*) FROM runs WHERE operation = 'download' AND outcome = 'interrupted' AND reason_code = 'HOST_STOPPED'")).toBeGreaterThan(0);
        }
        // Each enclosure byte-identical, each item's media written once, no partial or temporary output left.
        expectDownloadsIntact(lib);
      } finally {
        await lib.server.close();
      }
    });
  }

  for (const point of FENCE_POINTS) {
    it(`a transcription (pocketsphinx on espeak-ng speech) killed ${point}: its transcript and search rows committed once after the restart`, { timeout: 300_000 }, async () => {
      const media = tempDir('speech-folder');
      ['welcome to the library of recorded speech', 'the quick brown fox jumps over the lazy dog'].forEach((words, i) => makeSpeech(path.join(media, `talk ${i + 1}.mp3`), words));
      const data = tempDir(`transcribe-${point}`);
      addFolder(data, media);
      // Only transcription runs: the other speech engines are not what this case is about.
      const tree = path.join(tempDir('tree'), 'tree.json');
      fs.writeFileSync(tree, JSON.stringify({ id: 'root', children: [{ id: 'transcribe', match: { operation: 'transcribe' } }] }));
      expect(backlot(['tree', 'set', tree, '--data', data]).code).toBe(0);

      const first = await serve(data, { engines: 'production', env: { BACKLOT_TEST_COMMIT_FENCE: `transcribe:${point}:kill` } });
      expect((await killedAtFence(first)).signal).toBe('SIGKILL');
      const job = fencedJob(first, 'kill', 'transcribe', point);
      expect(fs.existsSync(path.join(data, TEMP, job, JOURNAL))).toBe(true);
      expect(countOf(data, "SELECT COUNT(*) FROM work WHERE operation = 'transcribe' AND state = 'done'")).toBe(point === 'after-record' ? 1 : 0);
      expect(countOf(data, 'SELECT COUNT(*) FROM work WHERE output_job = ?', job)).toBe(point === 'after-record' ? 1 : 0);

      const second = await serve(data, { engines: 'production' });
      await until('every transcription done', () => (countOf(data, "SELECT COUNT(*) FROM work WHERE operation = 'transcribe' AND state <> 'done'") === 0 ? true : undefined), 240_000, 100);
      await until('no run left open', () => (countOf(data, "SELECT COUNT(*) FROM runs WHERE outcome = 'running'") === 0 ? true : undefined), 60_000, 50);
      expect(await second.stop()).toBe(0);

      const db = openDb(data);
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        const rows = db.prepare("SELECT item_id, output_path, output_bytes, output_job FROM work WHERE operation = 'transcribe' ORDER BY item_id").all() as { item_id: string; output_path: string; output_bytes: number; output_job: string }[];
        expect(rows).toHaveLength(2);
        // Committed exactly once: each run's items_done is the outputs its jobs made, two in all, none failed.
        const runs = db.prepare("SELECT id, items_done, items_failed FROM runs WHERE operation = 'transcribe'").all() as { id: number; items_done: number; items_failed: number }[];
        for (const r of runs) expect(r.items_done, `run ${r.id}`).toBe(rows.filter((w) => Number(w.output_job.split('-')[0]) === r.id).length);
        expect(runs.reduce((s, r) => s + r.items_done, 0)).toBe(2);
        expect(runs.reduce((s, r) => s + r.items_failed, 0)).toBe(0);
        if (point === 'after-record') expect(rows.map((r) => r.output_job)).toContain(job);
        for (const r of rows) {
          expect(fs.statSync(r.output_path).size).toBe(r.output_bytes);
          const record = JSON.parse(fs.readFileSync(r.output_path, 'utf8')) as { engine: string; segments: unknown[] };
          expect(record.engine).toBe('pocketsphinx');
          expect(record.segments.length).toBeGreaterThan(0);
          // The transcript recorder's search rows: exactly the committed transcript's, once.
          expect(db.prepare('SELECT COUNT(*) FROM search_segments WHERE item_id = ?').pluck().get(r.item_id)).toBe(record.segments.length);
        }
        // One transcript file per item on disk, no temporary output, no checkpoint, no claim.
        const files = fs.readdirSync(path.join(data, 'outputs'), { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
        expect(files.map((f) => f.name)).toEqual(['transcript.json', 'transcript.json']);
        expect(tempEntries(data)).toEqual([]);
        const checkpoints = path.join(data, 'checkpoints', 'transcribe');
        expect(fs.existsSync(checkpoints) ? fs.readdirSync(checkpoints) : []).toEqual([]);
        expect(db.prepare('SELECT COUNT(*) FROM claims').pluck().get()).toBe(0);
      } finally {
        db.close();
      }
    });
  }
});

// The folder scan's commit (issue 18 §1): the folder-scan engine's pass comes back as a record plan
// and is applied in the settle transaction; killed there, nothing of the pass is applied (before) or
// all of it is (after), and the sync that follows ends where one uninterrupted pass would.
describe('kill -9 inside the folder scan commit', () => {
  for (const point of FENCE_POINTS) {
    it(`a folder sync (folder-scan engine) killed ${point}: the pass applied whole exactly once`, { timeout: 300_000 }, async () => {
      const media = makeMediaFolder(3, 'scan-folder');
      const data = tempDir(`scan-${point}`);
      const channel = addFolder(data, media);
      const tree = path.join(tempDir('tree'), 'tree.json');
      fs.writeFileSync(tree, JSON.stringify({ id: 'root', children: [{ id: 'sync', match: { operation: 'sync' } }] }));
      expect(backlot(['tree', 'set', tree, '--data', data]).code).toBe(0);
      // The folder changes (one file gone, one new) and its sync is due at the next start.
      fs.rmSync(path.join(media, 'tone 01.wav'));
      fs.copyFileSync(path.join(media, 'tone 02.wav'), path.join(media, 'tone 04.wav'));
      const setup = openDb(data);
      // Written past the host as a user's clock jump would: the last sync long ago, its due instant passed.
      setup.prepare('UPDATE channels SET last_sync_at = 0 WHERE id = ?').run(channel);
      setup.prepare("UPDATE work SET stale_at = 0 WHERE operation = 'sync' AND item_id = ?").run(channel);
      setup.close();
      const items = (): { external_id: string; media_state: string }[] => {
        const db = openDb(data);
        try { return db.prepare('SELECT external_id, media_state FROM items ORDER BY external_id').all() as { external_id: string; media_state: string }[]; } finally { db.close(); }
      };
      const before = items();
      const after = [
        { external_id: 'tone 01.wav', media_state: 'gone' }, { external_id: 'tone 02.wav', media_state: 'local' },
        { external_id: 'tone 03.wav', media_state: 'local' }, { external_id: 'tone 04.wav', media_state: 'local' },
      ];

      const first = await serve(data, { engines: 'production', env: { BACKLOT_TEST_COMMIT_FENCE: `sync:${point}:kill` } });
      expect((await killedAtFence(first)).signal).toBe('SIGKILL');
      fencedJob(first, 'kill', 'sync', point);
      // Nothing of the pass before its record, all of it after.
      expect(items()).toEqual(point === 'after-record' ? after : before);

      const second = await serve(data, { engines: 'production' });
      // Cut before its record, the sync is still due and runs again; cut after it, it is done and is not.
      if (point === 'before-record') await until('a sync succeeded', () => (countOf(data, "SELECT COUNT(*) FROM runs WHERE operation = 'sync' AND outcome = 'succeeded'") > 0 ? true : undefined), 120_000, 50);
      else expect(countOf<string>(data, "SELECT state FROM work WHERE operation = 'sync' AND item_id = ?", channel)).toBe('done');
      await until('no run left open', () => (countOf(data, "SELECT COUNT(*) FROM runs WHERE outcome = 'running'") === 0 ? true : undefined), 60_000, 50);
      expect(await second.stop()).toBe(0);
      expect(items()).toEqual(after);
      const db = openDb(data);
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        // The pass's summary was logged once, by the one settle that applied it.
        const summaries = db.prepare("SELECT params FROM run_logs WHERE key = 'scanSummary'").pluck().all() as string[];
        expect(summaries.map((p) => JSON.parse(p) as unknown)).toEqual([{ added: 1, changed: 0, removed: 1, unchanged: 2 }]);
        expect(db.prepare('SELECT status, lease_owner FROM scan_jobs WHERE channel_id = ?').get(channel)).toEqual({ status: 'finished', lease_owner: null });
        expect(db.prepare("SELECT COUNT(*) FROM runs WHERE operation = 'sync' AND outcome = 'failed'").pluck().get()).toBe(0);
        expect(db.prepare('SELECT COUNT(*) FROM claims').pluck().get()).toBe(0);
      } finally {
        db.close();
      }
      expect(tempEntries(data)).toEqual([]);
    });
  }
});
