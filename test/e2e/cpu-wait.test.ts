// "Waiting for CPU" in Debian's Chromium against `backlot serve` (docs/architecture.md "Engines at
// low priority"): a transcription at the default low priority, pinned to one core beside a busy
// program, is shown waiting under its progress bar; the mark is still there after going to another
// view and back, and leaves on its own once the engine asks for no CPU. Driven by the engine's hold
// file and the page's own updates, never by time.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser } from 'playwright-core';
import { cli, launchChromium, mediaFolder, newPage, seriousViolations, startServe, tempDir, type Serve, E2E_TEST_TIMEOUT_MS } from './support';
import { heldEnginePid, liftSuiteEnginePin } from '../engines/fixtures/engine-priority';

vi.setConfig({ testTimeout: E2E_TEST_TIMEOUT_MS, hookTimeout: E2E_TEST_TIMEOUT_MS });

liftSuiteEnginePin();

let browser: Browser;
let serve: Serve;
let folder: string;
let hold: string;
let busy: ChildProcess | null = null;
let enginePid = 0;

beforeAll(async () => {
  browser = await launchChromium();
  const data = tempDir('backlot-e2e-cpu-');
  folder = mediaFolder(['Night train']);
  cli(['library', 'add', folder, '--title', 'Field recordings', '--data', data]);
  const items = JSON.parse(cli(['items', '--json', '--data', data])) as { items: { id: string }[] };
  hold = path.join(data, 'hold');
  fs.writeFileSync(hold, '');
  // The transcription burns its chunks as CPU and holds after the first, its pid in the hold file's
  // name. The host runs its engines at the default low priority (the suite's pin is lifted above).
  process.env.BACKLOT_TEST_FAULTS = JSON.stringify({ [`transcribe:${items.items[0].id}`]: { burn: true, chunks: 1_000_000, chunkMs: 50, holdWhile: hold } });
  try {
    serve = await startServe(data, ['--engines', 'test']);
  } finally {
    delete process.env.BACKLOT_TEST_FAULTS;
  }
});

afterAll(async () => {
  busy?.kill('SIGKILL');
  if (enginePid > 0) try { process.kill(enginePid, 'SIGCONT'); } catch { /* gone */ }
  await serve?.stop();
  await browser?.close();
  if (serve) fs.rmSync(serve.dataDir, { recursive: true, force: true });
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
});

describe.skipIf(process.platform !== 'linux')('a transcription starved of CPU', () => {
  it('says "waiting for CPU" on the lane page, across views, and stops saying it when the engine asks for none', async () => {
    enginePid = await heldEnginePid(hold);
    expect(enginePid).toBeGreaterThan(0);
    const { context, page, errors } = await newPage(browser);
    await page.goto(serve.at('#/lanes'));
    const unit = page.locator('section.lane[data-lane="cpu"] .unit[data-operation="transcribe"]');
    await unit.waitFor();
    // Holding, it sleeps: not marked (a loaded machine may have marked its first chunk's burn).
    await unit.locator('.cpu-wait').waitFor({ state: 'detached' });

    // The engine (nice 19) and a busy program at the host's priority share one core.
    execFileSync('taskset', ['-a', '-p', '1', String(enginePid)], { stdio: 'ignore' });
    busy = spawn('taskset', ['1', process.execPath, '-e', 'for(;;){}'], { stdio: 'ignore' });
    fs.rmSync(hold);
    const mark = unit.locator('.cpu-wait');
    await mark.waitFor();
    expect(await mark.textContent()).toBe('Waiting for CPU: other programs are using the cores; the work goes on when they yield (setting engines.priority).');
    expect(await mark.getAttribute('role')).toBe('status');

    // Another view and back: the mark is the host's current state, not the first load's.
    const nav = (name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true });
    await nav('Runs').click();
    await page.waitForURL(/#\/runs$/);
    await unit.waitFor({ state: 'detached' });
    await nav('Lanes and work').click();
    await unit.locator('.cpu-wait').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // Stopped, the engine asks for no CPU: the page drops the mark by itself.
    process.kill(enginePid, 'SIGSTOP');
    await unit.locator('.cpu-wait').waitFor({ state: 'detached' });
    expect(await unit.count()).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  });
});
