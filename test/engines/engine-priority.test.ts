// Engines at low CPU priority (engines/engine-priority.ts, docs/architecture.md "Engines at low
// priority"), with real engine processes: the process and its session run at nice 19 with
// `engines.priority` low (the default), at the host's priority with normal, a running engine is lowered at once, the
// setting reaches the spawner through a dispatching host, a refused value is a clear error, and the
// test suite's pin (BACKLOT_TEST_ENGINE_PRIORITY, unset here) keeps engines at the host's priority.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEngine, type EngineOutcome, type RunEngineOptions } from '../../src-main/engines/runner';
import { testEngineCommand } from '../../src-main/engines/test-engine';
import { enginePriority, enginePriorityRefusal, LOW_PRIORITY_NICE, setEnginePriority } from '../../src-main/engines/engine-priority';
import { openApp, type BacklotApp } from '../../src-main/app/open-app';
import { heldEnginePid, liftSuiteEnginePin } from './fixtures/engine-priority';
import { SETTINGS } from '../../src-shared/settings/settings-schema';

let dir: string;
let app: BacklotApp | null = null;
// The suite pins engines to the host's priority (vitest.config.ts); these tests are of the priority itself.
liftSuiteEnginePin();
beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-priority-')); });
afterEach(async () => {
  await app?.close();
  app = null;
  delete process.env.BACKLOT_TEST_ENGINE_PRIORITY;
  setEnginePriority(SETTINGS['engines.priority'].default);
  fs.rmSync(dir, { recursive: true, force: true });
});

const FAST: RunEngineOptions = { timeoutMs: 30_000, stallTimeoutMs: 20_000, killGraceMs: 300 };

/** Runs a test engine; `whileRunning` gets its pid at its first progress line, while it still runs. */
async function runSeen(input: Record<string, unknown>, whileRunning: (pid: number) => void): Promise<EngineOutcome> {
  let pid = 0;
  let seen = false;
  const outcome = await runEngine(testEngineCommand(), { jobId: 'j1', operation: 'transcribe', input, outputDir: dir }, {
    ...FAST,
    onSpawn: (p) => { pid = p; },
    onProgress: () => {
      if (seen) return;
      seen = true;
      whileRunning(pid);
    },
  });
  expect(seen).toBe(true);
  return outcome;
}

/** The nice value of the process's autogroup (its session), or null where the kernel has none. */
function sessionNice(pid: number): number | null {
  try {
    const m = /nice (-?\d+)/.exec(fs.readFileSync(`/proc/${pid}/autogroup`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

describe.skipIf(process.platform === 'win32')('engines at low CPU priority', () => {
  it('starts an engine below the host with low: the process at nice 19, and its session where the kernel groups by session', async () => {
    // Low is the default, before any host has read its settings.
    expect(SETTINGS['engines.priority'].default).toBe('low');
    expect(enginePriority()).toBe('low');
    const seen: { nice: number; session: number | null }[] = [];
    const outcome = await runSeen({ chunks: 2, chunkMs: 5 }, (pid) => seen.push({ nice: os.getPriority(pid), session: sessionNice(pid) }));
    expect(outcome.ok).toBe(true);
    expect(seen[0].nice).toBe(LOW_PRIORITY_NICE);
    expect(LOW_PRIORITY_NICE).toBe(19);
    if (fs.existsSync('/proc/self/autogroup')) expect(seen[0].session).toBe(LOW_PRIORITY_NICE);
    // The host itself stays where it was.
    expect(os.getPriority(process.pid)).toBe(0);
    expect(enginePriorityRefusal()).toBeNull();
  });

  it('runs engines at the host\'s priority with normal, and lowers a running one at once when set back to low', async () => {
    setEnginePriority('normal');
    const hold = path.join(dir, 'hold');
    fs.writeFileSync(hold, '');
    const seen: number[] = [];
    const outcome = await runSeen({ chunks: 3, chunkMs: 5, holdWhile: hold }, (pid) => {
      seen.push(os.getPriority(pid));
      setEnginePriority('low');
      seen.push(os.getPriority(pid));
      fs.rmSync(hold);
    });
    expect(outcome.ok).toBe(true);
    expect(seen).toEqual([0, LOW_PRIORITY_NICE]);
  });

  it('a burning test engine spends its chunks as CPU time (the load benchmark\'s loaded machine)', async () => {
    if (process.platform !== 'linux') return;
    // At the host's priority: at nice 19 on a loaded machine its 300 ms of CPU could take minutes.
    setEnginePriority('normal');
    const hold = path.join(dir, 'hold');
    fs.writeFileSync(hold, '');
    let pid = 0;
    const run = runEngine(testEngineCommand(), { jobId: 'j2', operation: 'transcribe', input: { chunks: 2, chunkMs: 300, burn: true, holdWhile: hold }, outputDir: dir }, {
      ...FAST, onSpawn: (p) => { pid = p; },
    });
    // The engine says it holds after its first chunk, whose time it burnt: counted by its own CPU clock.
    expect(await heldEnginePid(hold)).toBe(pid);
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').slice(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').lastIndexOf(')') + 2).split(' ');
    const cpuMs = ((Number(stat[11]) + Number(stat[12])) * 1000) / 100;
    expect(cpuMs).toBeGreaterThanOrEqual(300);
    fs.rmSync(hold);
    expect((await run).ok).toBe(true);
  }, 180_000);

  it('takes engines.priority from a dispatching host\'s settings, and refuses a value it does not know', async () => {
    setEnginePriority('normal');
    app = await openApp({ dataDir: dir, dispatch: true });
    // A new library's setting is the default, low.
    expect(enginePriority()).toBe('low');
    app.dispatcher.settings.set('engines.priority', 'normal');
    expect(enginePriority()).toBe('normal');
    app.dispatcher.settings.set('engines.priority', 'low');
    expect(enginePriority()).toBe('low');
    expect(() => app!.dispatcher.settings.set('engines.priority', 'fast' as never)).toThrow(/engines\.priority.*must be one of low, normal/);
    expect(enginePriority()).toBe('low');
    app.dispatcher.settings.set('engines.priority', 'normal');
    expect(enginePriority()).toBe('normal');
  });

  it('keeps engines at the host\'s priority while the test suite pins them, whatever the setting', async () => {
    setEnginePriority('low');
    process.env.BACKLOT_TEST_ENGINE_PRIORITY = 'normal';
    const seen: number[] = [];
    const outcome = await runSeen({ chunks: 2, chunkMs: 5 }, (pid) => seen.push(os.getPriority(pid)));
    expect(outcome.ok).toBe(true);
    expect(seen).toEqual([0]);
    expect(enginePriority()).toBe('low');
  });
});
