// The real window in a real browser: `backlot serve` as a child process on a temp library, Debian
// Chromium driven by playwright-core. It checks what a user sees first: the channel, its six
// separate counts per operation, the error banner, and a live refresh on a host event; then the
// Lanes panel with its pause switches, "Why is this waiting?", and Recent runs filling live.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixtureLibrary, FIXTURE_CHANNEL, type FixtureLibrary } from '../shells/library-fixture';
import { startHeadlessApp, DEFAULT_RENDERER_DIR, type HeadlessApp } from '../../src-main/shells/headless/start';
import { openApp } from '../../src-main/app/open-app';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CHROMIUM = process.env.BACKLOT_CHROMIUM ?? '/usr/bin/chromium';
const screenshotDir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-e2e-'));

let browser: Browser;

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`The window test needs Debian Chromium at ${CHROMIUM} (apt-get install -y chromium); it is not skipped without it.`);
  }
  buildRendererIfStale();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
});

/** The headless shell serves out/renderer; build it when it is missing or older than its sources. */
function buildRendererIfStale(): void {
  const built = path.join(DEFAULT_RENDERER_DIR, 'index.html');
  const newest = (dir: string): number => fs.readdirSync(dir, { withFileTypes: true })
    .map((e) => (e.isDirectory() ? newest(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).mtimeMs))
    .reduce((a, b) => Math.max(a, b), 0);
  if (fs.existsSync(built) && fs.statSync(built).mtimeMs >= Math.max(newest(path.join(root, 'src-renderer')), newest(path.join(root, 'src-shared')))) return;
  execFileSync(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'vite.renderer.config.ts', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
}

function startServe(dataDir: string, extraArgs: string[] = []): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(process.execPath, [path.join(root, 'bin/backlot.mjs'), 'serve', '--data', dataDir, '--port', '0', ...extraArgs], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`backlot serve printed no URL; stderr: ${err}`)), 30_000);
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(out);
      if (m) { clearTimeout(timer); resolve({ proc, url: m[1] }); }
    });
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`backlot serve exited with ${code}; stderr: ${err}`)); });
  });
}

/** The cell for (operation, column), found by row header and column header as a screen reader would. */
async function count(page: Page, operation: string, column: string): Promise<string> {
  const headers = (await page.locator('section.channel thead th').allTextContents()).map((h) => h.trim());
  const row = page.locator('section.channel tbody tr').filter({ has: page.getByRole('rowheader', { name: operation, exact: true }) });
  const cells = await row.locator('th, td').allTextContents();
  return (cells[headers.indexOf(column)] ?? '').trim();
}

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}

describe('the first window, served by `backlot serve`', () => {
  let lib: FixtureLibrary;
  let serve: { proc: ChildProcess; url: string };

  beforeAll(async () => {
    lib = createFixtureLibrary(2);
    serve = await startServe(lib.dataDir);
  });
  afterAll(async () => {
    if (serve?.proc.exitCode === null) {
      const exited = new Promise((r) => serve.proc.once('exit', r));
      serve.proc.kill('SIGTERM');
      await exited;
    }
    lib?.remove();
  });

  it('shows the channel and its six counts per operation, as separate columns', async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 720 } });
    const errors = watchErrors(page);
    const socket = page.waitForEvent('websocket');
    await page.goto(serve.url);

    await expect.poll(() => page.getByRole('heading', { level: 2, name: FIXTURE_CHANNEL.title }).count()).toBe(1);
    const headers = await page.locator('section.channel thead th').allTextContents();
    expect(headers.map((h) => h.trim())).toEqual(['Operation', 'Done', 'Missing', 'Stale', 'Missing input', 'Deferred', 'Blocked']);
    const operations = await page.locator('section.channel tbody th[scope="row"]').allTextContents();
    expect(operations.map((o) => o.trim())).toEqual(['sync', 'download', 'transcribe', 'diarize', 'attribute-voices', 'attribute-words', 'digest', 'channel-digest']);

    expect(await count(page, 'sync', 'Done')).toBe('1');
    expect(await count(page, 'download', 'Done')).toBe('2');
    expect(await count(page, 'transcribe', 'Missing')).toBe('2');
    expect(await count(page, 'transcribe', 'Done')).toBe('0');
    expect(await count(page, 'digest', 'Blocked')).toBe('2');
    await expect.poll(() => page.locator('.channel-meta').textContent()).toContain('2 items');

    // The token leaves the address bar once the app has it; the events socket is open with it.
    expect(new URL(page.url()).searchParams.has('token')).toBe(false);
    const ws = await socket;
    expect(ws.url()).toMatch(/\/events\?token=/);
    expect(ws.isClosed()).toBe(false);

    const shot = path.join(screenshotDir, 'window.png');
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`window screenshot: ${shot}`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('keeps working after a reload (the token stays with the tab)', async () => {
    const page = await browser.newPage();
    await page.goto(serve.url);
    await expect.poll(() => page.getByRole('heading', { level: 2, name: FIXTURE_CHANNEL.title }).count()).toBe(1);
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { level: 2, name: FIXTURE_CHANNEL.title }).count()).toBe(1);
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.close();
  });

  it('shows the code and the sentence in a banner when a call is refused', async () => {
    const page = await browser.newPage();
    const withoutToken = new URL(serve.url);
    withoutToken.search = '';
    await page.goto(withoutToken.href);
    const banner = page.getByRole('alert');
    await expect.poll(() => banner.count()).toBe(1);
    expect(await banner.locator('.error-code').textContent()).toBe('UNAUTHORIZED');
    expect(await banner.locator('.error-message').textContent()).toMatch(/token that "backlot serve" printed/);
    expect(await banner.textContent()).not.toMatch(/\bat .*\.(ts|js):\d+/);
    expect(await page.locator('section.channel').count()).toBe(0);
    await page.close();
  });
});

describe('live refresh', () => {
  let lib: FixtureLibrary;
  let app: HeadlessApp;

  beforeAll(async () => {
    lib = createFixtureLibrary(2);
    app = await startHeadlessApp({ dataDir: lib.dataDir, port: 0 }, openApp);
  });
  afterAll(async () => {
    await app?.stop();
    lib?.remove();
  });

  it('re-reads the snapshot when the host says it changed', async () => {
    const page = await browser.newPage();
    const socket = page.waitForEvent('websocket');
    await page.goto(app.server.url);
    await expect.poll(() => count(page, 'transcribe', 'Missing').catch(() => '')).toBe('2');
    await socket;

    const now = app.host.now();
    app.host.library.addItem({
      id: `${FIXTURE_CHANNEL.id}.late`, channel_id: FIXTURE_CHANNEL.id, external_id: 'late.mp4', title: 'Late',
      published_at: now, media_state: 'local', fingerprint: 'fp-late',
    }, now, ['sync', 'download']);
    app.host.emit('snapshot-changed');

    await expect.poll(() => count(page, 'transcribe', 'Missing')).toBe('3');
    expect(await count(page, 'download', 'Done')).toBe('3');
    await page.close();
  });
});

const TOKEN = 'e2e-window-token-0123';
const LANES = ['sync', 'download', 'gpu', 'cpu', 'remote'];

async function stopServe(serve: { proc: ChildProcess } | undefined): Promise<void> {
  if (serve?.proc.exitCode === null) {
    const exited = new Promise((r) => serve.proc.once('exit', r));
    serve.proc.kill('SIGTERM');
    await exited;
  }
}

/** The typed API as any client sees it, to check that what the window shows is what the host holds. */
async function api<T>(url: string, method: string, payload: unknown = {}): Promise<T> {
  const response = await fetch(new URL(`/api/${method}`, url), {
    method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}` }, body: JSON.stringify(payload),
  });
  expect(response.status).toBe(200);
  return await response.json() as T;
}

type Lanes = { lanes: { lane: string; paused: boolean; hold: { code: string } | null }[] };
const pausedLanes = async (url: string) => (await api<Lanes>(url, 'lanes.list')).lanes.filter((l) => l.paused).map((l) => l.lane);

const laneRow = (page: Page, lane: string) => page.locator('section.lanes tbody tr').filter({ has: page.getByRole('rowheader', { name: lane, exact: true }) });
const laneState = async (page: Page, lane: string) => ((await laneRow(page, lane).locator('td.lane-state').textContent()) ?? '').trim();

describe('lanes, why and runs, served by `backlot serve --token`', () => {
  let lib: FixtureLibrary;
  let serve: { proc: ChildProcess; url: string };

  beforeAll(async () => {
    // The fixture's media files do not exist: with diarization off and only the gpu lane's
    // transcription engine on (pocketsphinx would run on the cpu lane), nothing reachable can start.
    lib = createFixtureLibrary(2, { 'engines.diarize': [], 'engines.download': [], 'engines.transcribe': ['whisper.cpp'] });
    serve = await startServe(lib.dataDir, ['--token', TOKEN]);
  });
  afterAll(async () => {
    await stopServe(serve);
    lib?.remove();
  });

  it('shows the five lanes; Pause and Resume on cpu change it here and in the host', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors = watchErrors(page);
    await page.goto(serve.url);

    const lanes = page.getByRole('region', { name: 'Lanes' });
    await expect.poll(() => lanes.locator('tbody th[scope="row"]').allTextContents().then((t) => t.map((x) => x.trim()))).toEqual(LANES);
    expect((await lanes.locator('thead th').allTextContents()).map((h) => h.trim())).toEqual(['Lane', 'Slots', 'Running', 'State', 'Hold', 'Action']);
    expect(await laneState(page, 'cpu')).toBe('Active');
    // A lane whose engines cannot start says so in words, not as a code (every download engine is
    // turned off in this library's settings); the cpu lane has the speaker engines, so nothing holds it.
    expect(await laneRow(page, 'gpu').locator('td.lane-hold').textContent()).toContain('The gpu lane has no slots');
    expect(await laneRow(page, 'download').locator('td.lane-hold').textContent()).toContain('failed its check (NO_ENGINE_ENABLED)');
    expect(await laneRow(page, 'cpu').locator('td.lane-hold').textContent()).toContain('Nothing holds it.');
    expect(await pausedLanes(serve.url)).toEqual([]);

    await page.getByRole('button', { name: 'Pause the cpu lane' }).click();
    await expect.poll(() => laneState(page, 'cpu')).toBe('Paused');
    expect(await laneRow(page, 'cpu').locator('td.lane-hold').textContent()).toContain('The cpu lane is paused');
    expect(await laneState(page, 'gpu')).toBe('Active');
    expect(await pausedLanes(serve.url)).toEqual(['cpu']);
    await expect.poll(() => page.getByRole('button', { name: 'Resume the cpu lane' }).count()).toBe(1);

    await page.getByRole('button', { name: 'Resume the cpu lane' }).click();
    await expect.poll(() => laneState(page, 'cpu')).toBe('Active');
    expect(await pausedLanes(serve.url)).toEqual([]);

    // Pause everything holds every lane through "*"; resuming everything lifts it again.
    await page.getByRole('button', { name: 'Pause everything' }).click();
    await expect.poll(async () => Promise.all(LANES.map((l) => laneState(page, l)))).toEqual(LANES.map(() => 'Paused'));
    expect(await pausedLanes(serve.url)).toEqual(LANES);
    expect(await laneRow(page, 'remote').locator('td.lane-hold').textContent()).toContain('Paused with everything');
    await page.getByRole('button', { name: 'Resume everything' }).click();
    await expect.poll(async () => Promise.all(LANES.map((l) => laneState(page, l)))).toEqual(LANES.map(() => 'Active'));
    expect(await pausedLanes(serve.url)).toEqual([]);

    // A pause from elsewhere (another window, the CLI through the API) shows up on lanes-changed.
    await api(serve.url, 'lanes.pause', { lane: 'download' });
    await expect.poll(() => laneState(page, 'download')).toBe('Paused');
    await api(serve.url, 'lanes.resume', { lane: 'download' });
    await expect.poll(() => laneState(page, 'download')).toBe('Active');

    expect(await page.getByRole('region', { name: 'Recent runs' }).textContent()).toContain('Nothing has run yet.');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('says why digest waits: blocked on attribute-words', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
    const errors = watchErrors(page);
    await page.goto(serve.url);
    await expect.poll(() => count(page, 'digest', 'Blocked').catch(() => '')).toBe('2');

    // The operation's name is the way in; the six counts and the headers stay as they were.
    const digest = page.getByRole('rowheader', { name: 'digest', exact: true }).getByRole('button');
    await digest.click();
    const why = page.getByRole('region', { name: /Why is digest waiting\?/ });
    await expect.poll(() => why.count()).toBe(1);
    expect(await digest.getAttribute('aria-expanded')).toBe('true');
    // Nothing of digest is reachable (both items wait on attribute-words), so the channel's other items are offered.
    await expect.poll(() => why.textContent()).toContain('No item can run digest right now.');
    const item = `${FIXTURE_CHANNEL.id}.item2`;
    await why.getByRole('button', { name: item, exact: true }).click();
    await expect.poll(() => why.locator('.why-item').textContent()).toBe(item);
    await expect.poll(() => why.locator('.why-reason').getAttribute('data-code')).toBe('BLOCKED_ON');
    expect(await why.locator('.why-state').textContent()).toBe('Blocked');
    expect(await why.locator('.why-sentence').textContent()).toBe('Blocked on attribute-words: that has to finish for this item first.');

    // A reachable operation lists its items newest first and explains the chosen one.
    await page.getByRole('rowheader', { name: 'transcribe', exact: true }).getByRole('button').click();
    const whyTranscribe = page.getByRole('region', { name: /Why is transcribe waiting\?/ });
    await expect.poll(() => whyTranscribe.locator('ul').first().getByRole('button').allTextContents())
      .toEqual([`${FIXTURE_CHANNEL.id}.item1`, `${FIXTURE_CHANNEL.id}.item2`]);
    await expect.poll(() => whyTranscribe.locator('.why-reason').getAttribute('data-code')).toBe('PREFLIGHT_FAILED');
    expect(await whyTranscribe.locator('.why-state').textContent()).toBe('Missing');
    expect(await whyTranscribe.locator('.why-sentence').textContent()).toContain('The engine on the gpu lane failed its check (NO_USABLE_GPU)');

    // An unknown id typed in is refused by the host, shown as its code and sentence.
    await whyTranscribe.getByLabel('Item id').fill('no-such-item');
    await whyTranscribe.getByRole('button', { name: 'Explain' }).click();
    await expect.poll(() => whyTranscribe.getByRole('alert').locator('.error-code').textContent()).toBe('WORK_NOT_FOUND');

    // Back to digest for the picture.
    await page.getByRole('rowheader', { name: 'digest', exact: true }).getByRole('button').click();
    await expect.poll(() => page.locator('.why .why-reason').getAttribute('data-code')).toBe('BLOCKED_ON');
    const shot = path.join(screenshotDir, 'why.png');
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`why screenshot: ${shot}`);
    expect(errors.filter((e) => !/status of 4\d\d/.test(e))).toEqual([]);
    await page.close();
  });
});

describe('runs filling in live, with the test engines', () => {
  let lib: FixtureLibrary;
  let serve: { proc: ChildProcess; url: string };

  beforeAll(async () => {
    lib = createFixtureLibrary(2);
    // Everything starts paused (through the CLI), so the window sees work begin only when asked.
    execFileSync(process.execPath, [path.join(root, 'bin/backlot.mjs'), 'lanes', 'pause', '*', '--data', lib.dataDir], { cwd: root, stdio: 'ignore' });
    serve = await startServe(lib.dataDir, ['--token', TOKEN, '--engines', 'test']);
  });
  afterAll(async () => {
    await stopServe(serve);
    lib?.remove();
  });

  it('resuming everything runs the pipeline; runs and counts appear without a reload', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 1100 } });
    const errors = watchErrors(page);
    await page.goto(serve.url);
    await expect.poll(async () => Promise.all(LANES.map((l) => laneState(page, l).catch(() => '')))).toEqual(LANES.map(() => 'Paused'));
    const runs = page.getByRole('region', { name: 'Recent runs' });
    expect(await runs.textContent()).toContain('Nothing has run yet.');

    // Asked while everything is paused, reachable work says so.
    await page.getByRole('rowheader', { name: 'transcribe', exact: true }).getByRole('button').click();
    await expect.poll(() => page.locator('.why .why-reason').getAttribute('data-code')).toBe('LANE_PAUSED');
    expect(await page.locator('.why .why-sentence').textContent()).toMatch(/^Paused with everything/);

    await page.getByRole('button', { name: 'Resume everything' }).click();
    await expect.poll(() => count(page, 'digest', 'Done'), { timeout: 30_000 }).toBe('2');
    // Consecutive items on one slot share a run, so how many runs there are varies; every item
    // operation after download ran at least once.
    await expect.poll(() => runs.locator('tbody tr').count()).toBeGreaterThanOrEqual(5);
    expect((await runs.locator('thead th').allTextContents()).map((h) => h.trim()))
      .toEqual(['Run', 'Operation', 'Channel', 'Lane', 'Trigger', 'Outcome', 'Reason', 'Done', 'Failed', 'Started', 'Ended']);
    const digestRun = runs.locator('tbody tr').filter({ has: page.getByRole('cell', { name: 'digest', exact: true }) }).first();
    // The runs table follows its own event, which may arrive up to one event interval (250 ms)
    // after the counts' one: wait for the run's close to show rather than race it.
    await expect.poll(async () => (await digestRun.locator('th, td').allTextContents()).map((c) => c.trim())[5]).toBe('succeeded');
    const cells = (await digestRun.locator('th, td').allTextContents()).map((c) => c.trim());
    expect(cells.slice(1, 6)).toEqual(['digest', FIXTURE_CHANNEL.title, 'cpu', 'Scheduler', 'succeeded']);
    expect(Number(cells[7])).toBeGreaterThanOrEqual(1);
    expect(cells[8]).toBe('0');
    expect(cells[9]).toMatch(/\d/);
    expect(cells[10]).toMatch(/\d/);
    const listed = (await api<{ runs: { id: number }[] }>(serve.url, 'runs.list', { limit: 20 })).runs.map((r) => `#${r.id}`);
    expect((await runs.locator('tbody th').allTextContents()).map((c) => c.trim())).toEqual(listed);

    // The open explanation follows the work: transcribe is now done.
    await expect.poll(() => page.locator('.why .why-reason').getAttribute('data-code')).toBe('DONE');
    await expect.poll(async () => Promise.all(LANES.map((l) => laneState(page, l)))).toEqual(LANES.map(() => 'Active'));
    const shot = path.join(screenshotDir, 'runs.png');
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`runs screenshot: ${shot}`);
    expect(errors).toEqual([]);
    await page.close();
  });
});
