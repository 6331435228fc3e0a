// "Waiting for CPU" on the lane page (dispatch/unit-progress.ts, docs/architecture.md "Engines at low
// priority"): a real burning engine at low priority, pinned to one core beside a busy program, is
// marked as waiting in lanes.detail; stopped (asking for no CPU) it is not. Driven by the host's
// events and the engine's own hold file, never by time.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp } from '../../src-main/app/open-app';
import { createHandlers } from '../../src-main/api/handlers';
import { setEnginePriority } from '../../src-main/engines/engine-priority';
import { waitingForCpu } from '../../src-main/engines/cpu-wait';
import { API } from '../../src-shared/api/contract';
import { SETTINGS } from '../../src-shared/settings/settings-schema';
import { createFixtureLibrary, FIXTURE_CHANNEL } from '../shells/library-fixture';
import { untilHost } from '../shells/host-events';
import { heldEnginePid, liftSuiteEnginePin } from './fixtures/engine-priority';

const cleanups: (() => Promise<void> | void)[] = [];
// The suite pins engines to the host's priority (vitest.config.ts); here the engine must run low.
liftSuiteEnginePin();
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
  setEnginePriority(SETTINGS['engines.priority'].default);
});

describe('the rule', () => {
  it('marks an engine that waited a quarter of the span or more and ran less than half as long as it waited', () => {
    const zero = { runMs: 0, waitMs: 0 };
    expect(waitingForCpu(zero, { runMs: 30, waitMs: 1900 }, 2000)).toBe(true);
    expect(waitingForCpu(zero, { runMs: 100, waitMs: 500 }, 2000)).toBe(true);
    // Too little wait in the span: a short queue behind the host, not starvation.
    expect(waitingForCpu(zero, { runMs: 10, waitMs: 499 }, 2000)).toBe(false);
    // Two engines sharing a core as equals each run about as long as they wait.
    expect(waitingForCpu(zero, { runMs: 1000, waitMs: 1000 }, 2000)).toBe(false);
    // Asleep on the network or a disk: neither running nor waiting.
    expect(waitingForCpu(zero, zero, 2000)).toBe(false);
    expect(waitingForCpu(zero, { runMs: 0, waitMs: 900 }, 0)).toBe(false);
  });
});

describe.skipIf(process.platform !== 'linux')('a starved engine on the lane page', () => {
  it('is marked waiting beside a busy program on its core, and not once it asks for no CPU', async () => {
    const lib = createFixtureLibrary(1);
    cleanups.push(() => lib.remove());
    const hold = path.join(lib.dataDir, 'hold');
    fs.writeFileSync(hold, '');
    // The item's transcription burns its chunks as CPU and holds after the first, saying its pid in the
    // hold file's name; its other work runs as the test engine's quick default.
    const app = await openApp({
      dataDir: lib.dataDir, dispatch: true, engines: 'test',
      test: { chunks: 4, chunkMs: 5, faults: { [`transcribe:${FIXTURE_CHANNEL.id}.item1`]: { burn: true, chunks: 1_000_000, chunkMs: 50, holdWhile: hold } } },
    });
    cleanups.push(() => app.close());
    // Low is the default: nothing to set.
    expect(app.dispatcher.settings.get('engines.priority')).toBe('low');
    const h = createHandlers(app.host, app.dispatcher);
    const units = async () => API['lanes.detail'].response.parse(await h['lanes.detail']({})).lanes.flatMap((l) => l.units)
      .filter((u) => u.operation === 'transcribe');

    const pid = await heldEnginePid(hold);
    expect(pid).toBeGreaterThan(0);
    // Holding, it sleeps: not waiting (a loaded machine may have marked its first chunk's burn).
    await untilHost(app, async () => (await units()).every((u) => !u.waitingForCpu));
    expect((await units()).map((u) => [u.operation, u.waitingForCpu])).toEqual([['transcribe', false]]);

    // The engine and a busy program at the host's priority share one core: the engine, at nice 19, waits.
    execFileSync('taskset', ['-a', '-p', '1', String(pid)], { stdio: 'ignore' });
    const busy: ChildProcess = spawn('taskset', ['1', process.execPath, '-e', 'for(;;){}'], { stdio: 'ignore' });
    cleanups.push(() => { busy.kill('SIGKILL'); });
    fs.rmSync(hold);
    await untilHost(app, async () => (await units()).some((u) => u.waitingForCpu));
    expect((await units()).map((u) => [u.operation, u.waitingForCpu])).toEqual([['transcribe', true]]);

    // Stopped, the engine asks for no CPU at all: not waiting, whatever else the core runs.
    process.kill(pid, 'SIGSTOP');
    cleanups.push(() => { try { process.kill(pid, 'SIGCONT'); } catch { /* gone */ } });
    await untilHost(app, async () => (await units()).every((u) => !u.waitingForCpu));
    expect((await units()).map((u) => [u.operation, u.waitingForCpu])).toEqual([['transcribe', false]]);
  }, 300_000);
});
