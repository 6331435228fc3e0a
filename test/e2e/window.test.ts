// The real window in a real browser: `backlot serve` as a child process on a temp library, Debian
// Chromium driven by playwright-core. It checks what a user sees first: the channel, its six
// separate counts per operation, the error banner, and a live refresh on a host event.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixtureLibrary, FIXTURE_CHANNEL, type FixtureLibrary } from '../shells/library-fixture';
import { startHeadlessApp, DEFAULT_RENDERER_DIR, type HeadlessApp } from '../../src-main/shells/headless/start';

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

function startServe(dataDir: string): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(process.execPath, [path.join(root, 'bin/backlot.mjs'), 'serve', '--data', dataDir, '--port', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
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
    expect(operations.map((o) => o.trim())).toEqual(['sync', 'download', 'transcribe', 'diarize', 'attribute-voices', 'attribute-words', 'digest']);

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
    app = await startHeadlessApp({ dataDir: lib.dataDir, port: 0 });
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
