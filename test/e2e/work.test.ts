// Lanes, runs and notices in Debian's Chromium against `backlot serve`: a lane whose engines failed
// their check says so and is never shown working; pausing and resuming one lane and everything goes
// through the host's one pause; a running unit shows its progress bar with the engine's message; a
// failure after its last retry arrives as a notice that links to its run, whose log can be read
// and filtered. axe-core finds nothing serious on these views.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, cli, launchChromium, mediaFolder, newPage, screenshot, seriousViolations, startServe, tempDir, type Serve, E2E_TEST_TIMEOUT_MS } from './support';

vi.setConfig({ testTimeout: E2E_TEST_TIMEOUT_MS, hookTimeout: E2E_TEST_TIMEOUT_MS });

let browser: Browser;
beforeAll(async () => { browser = await launchChromium(); }, 180_000);
afterAll(async () => { await browser?.close(); });

type Lanes = { lanes: { lane: string; paused: boolean; hold: { code: string } | null }[] };
const pausedLanes = async (serve: Serve) => (await api<Lanes>(serve, 'lanes.list')).lanes.filter((l) => l.paused).map((l) => l.lane);
const laneCard = (page: Page, lane: string) => page.locator(`section.lane[data-lane="${lane}"]`);
const laneState = (page: Page, lane: string, state: string) => laneCard(page, lane).getByTestId('lane-state').filter({ hasText: new RegExp(`^${state}$`) }).waitFor();

describe('lanes on the production engines', () => {
  let serve: Serve;
  beforeAll(async () => {
    serve = await startServe(tempDir('backlot-e2e-prod-'));
  });
  afterAll(async () => { await serve?.stop(); fs.rmSync(serve.dataDir, { recursive: true, force: true }); });

  it('says a lane cannot start when its engines failed their check, never that it works', async () => {
    const { context, page, errors } = await newPage(browser);
    await page.goto(serve.at('#/lanes'));
    // No GPU here: the GPU lane's engines say why they cannot run, and so does the lane.
    await laneState(page, 'gpu', 'Cannot start');
    const gpu = laneCard(page, 'gpu');
    expect(await gpu.locator('.lane-engines li').allTextContents()).toContain('whisper.cpp (Transcribe): No usable GPU was found.');
    // The remote digest engine is off until it is configured, so no engine is bound to that lane:
    // it says so, rather than idle.
    await laneState(page, 'remote', 'No engine');
    // The CPU lane's engines are ready (pocketsphinx, the speaker and digest engines): idle, not held.
    await laneState(page, 'cpu', 'Idle');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('lanes, progress, runs and notices on the test engines', () => {
  let serve: Serve;
  let folder: string;
  let failing: string;
  beforeAll(async () => {
    const data = tempDir('backlot-e2e-work-');
    folder = mediaFolder(['Harbour sounds', 'Evening lecture', 'Broken tape']);
    // The library and its settings through the CLI, as a user at a terminal would: one attempt per
    // item, so the broken one fails for good at once; everything paused until the test resumes it.
    cli(['library', 'add', folder, '--title', 'Field recordings', '--data', data]);
    cli(['settings', 'set', 'retry.maxAttempts', '1', '--data', data]);
    cli(['lanes', 'pause', '*', '--data', data]);
    const items = JSON.parse(cli(['items', '--json', '--data', data])) as { items: { id: string; title: string }[] };
    failing = items.items.find((i) => i.title === 'Broken tape')!.id;
    process.env.BACKLOT_TEST_FAULTS = JSON.stringify({ [`transcribe:${failing}`]: { errorCode: 'ENGINE_CRASHED' } });
    // Slow chunks: a unit reports four times, a second apart, so its progress can be seen.
    serve = await startServe(data, ['--engines', 'test', '--test-chunk-ms', '1000']);
    delete process.env.BACKLOT_TEST_FAULTS;
  });
  afterAll(async () => {
    await serve?.stop();
    fs.rmSync(serve.dataDir, { recursive: true, force: true });
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('pauses and resumes one lane and everything through the host, and shows progress while work runs', async () => {
    const { context, page, errors } = await newPage(browser);
    await page.goto(serve.at('#/lanes'));
    for (const lane of ['sync', 'download', 'gpu', 'cpu', 'remote']) await laneState(page, lane, 'Paused');
    expect(await laneCard(page, 'cpu').locator('.lane-hold').textContent()).toMatch(/^Paused with everything else/);
    expect(await pausedLanes(serve)).toEqual(['sync', 'download', 'gpu', 'cpu', 'remote']);

    // Resume everything, then pause only the remote lane: the host agrees at each step.
    await page.getByTestId('pause-all').filter({ hasText: 'Resume everything' }).click();
    await laneCard(page, 'remote').getByRole('button', { name: 'Pause the remote lane' }).click();
    await laneState(page, 'remote', 'Paused');
    expect(await pausedLanes(serve)).toEqual(['remote']);
    expect(await laneCard(page, 'remote').locator('.lane-hold').textContent()).toBe('The remote lane is paused: nothing new starts on it until you resume it.');
    await laneCard(page, 'remote').getByRole('button', { name: 'Resume the remote lane' }).click();
    await laneCard(page, 'remote').getByRole('button', { name: 'Pause the remote lane' }).waitFor();
    expect(await pausedLanes(serve)).toEqual([]);

    // Work runs on the CPU lane (no GPU here): a unit with its title, a progress bar and the engine's message.
    await laneState(page, 'cpu', 'Working');
    const bar = laneCard(page, 'cpu').getByRole('progressbar').first();
    await bar.waitFor();
    await page.waitForFunction(() => Number(document.querySelector('section.lane[data-lane="cpu"] [role="progressbar"]')?.getAttribute('aria-valuenow') ?? 0) > 0);
    const unit = laneCard(page, 'cpu').locator('.unit').first();
    // Keyed at the engine and said by the window (docs/i18n.md "Progress messages"): its key beside it.
    expect(await unit.locator('.progress-message').textContent()).toMatch(/Chunk \d of 4/);
    expect(await unit.locator('.progress-message').getAttribute('data-key')).toBe('chunkOf');
    expect(await unit.locator('.unit-head a').first().textContent()).toMatch(/Harbour sounds|Evening lecture|Broken tape/);
    // A pause from elsewhere (the API, as the CLI or another window would) shows up on its own.
    await api(serve, 'lanes.pause', { lane: 'download' });
    await laneState(page, 'download', 'Paused');
    await api(serve, 'lanes.resume', { lane: 'download' });
    await laneState(page, 'download', 'Idle');

    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'lanes');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('announces the failure as a notice that links to its run, whose log reads by level and text', async () => {
    const { context, page, errors } = await newPage(browser);
    await page.goto(serve.at('#/runs'));
    const notice = page.locator('.notice[data-kind="run-failed"]');
    await notice.waitFor({ timeout: 120_000 });
    expect(await notice.textContent()).toContain('Work failed');
    expect(await notice.textContent()).toContain('The engine crashed.');
    await notice.getByRole('link', { name: 'Deal with it' }).click();
    await page.waitForURL(/#\/runs\/\d+$/);
    const runId = Number(/#\/runs\/(\d+)$/.exec(page.url())![1]);
    const detail = page.getByRole('region', { name: `Run #${runId}` });
    await detail.waitFor();
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1');

    // The run's log: the failing unit's warning is there; filters run on the host.
    const lines = detail.locator('.log-line');
    // By its title and the reason's sentence, as a person reads it, not its id and code (the line is
    // keyed, docs/i18n.md "Log lines"; its stored English text keeps the code for the filter below).
    await lines.locator('.log-text[data-key="unitFailed"]').filter({ hasText: '“Broken tape” failed: The engine crashed.' }).waitFor();
    await detail.getByTestId('log-level').selectOption('warn');
    await page.waitForFunction(() => [...document.querySelectorAll('.log-line')].every((l) => ['warn', 'error'].includes(l.getAttribute('data-level') ?? '')));
    await detail.getByTestId('log-level').selectOption('debug');
    await detail.getByTestId('log-text').fill('chunk');
    await page.waitForFunction(() => {
      const all = [...document.querySelectorAll('.log-line .log-text')];
      return all.length === 0 || all.every((l) => l.textContent?.includes('chunk'));
    });
    await detail.getByTestId('log-text').fill('ENGINE_CRASHED');
    await detail.getByTestId('log-count').filter({ hasText: /^1 line$/ }).waitFor();

    // The history filtered by that run's outcome (a stretch with successes too ends "succeeded",
    // with the failure as its reason) shows it, and only runs of that outcome.
    await detail.getByTestId('run-outcome').filter({ hasNotText: 'Running' }).waitFor();
    const { run } = await api<{ run: { outcome: string } }>(serve, 'runs.get', { run: runId });
    await page.getByTestId('runs-outcome').selectOption(run.outcome);
    await page.locator(`.runs-table tr[data-run="${runId}"]`).waitFor();
    const word = run.outcome === 'failed' ? 'Failed' : 'Succeeded';
    await page.waitForFunction((w) => [...document.querySelectorAll('.runs-table tbody tr .badge')].every((b) => b.textContent === w), word);
    expect(await page.locator('.job[data-job="transcribe:cpu"] .run-dots').getAttribute('aria-label')).toMatch(/^Last three runs: #\d+ /);

    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'runs');
    expect(errors).toEqual([]);
    await context.close();
  });
});
