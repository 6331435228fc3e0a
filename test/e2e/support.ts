// What the real-browser tests share: Debian's Chromium through playwright-core (never a downloaded
// browser) with the flags this machine needs, `backlot serve` as a child process on a temp library,
// the built window, the typed API as any client sees it, axe-core injected into the page, and the
// screenshots (into docs/screenshots when BACKLOT_SCREENSHOTS names it, else a temp folder).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { DEFAULT_RENDERER_DIR } from '../../src-main/shells/headless/start';
import { postOnce } from '../http-post';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CHROMIUM = process.env.BACKLOT_CHROMIUM ?? '/usr/bin/chromium';
export const BACKLOT = path.join(root, 'bin/backlot.mjs');
/** How long one browser step may take before the test fails (a guard on a loaded machine). */
export const E2E_STEP_TIMEOUT_MS = 90_000;
/** A browser test's own limit: several guarded steps. */
export const E2E_TEST_TIMEOUT_MS = 300_000;

/**
 * The flags this machine's Chromium needs. playwright's launch() gives every browser a fresh
 * temporary --user-data-dir of its own (and refuses one passed here); each test also gets its own
 * context, so no language or theme choice leaks from one test into the next.
 */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--autoplay-policy=no-user-gesture-required'];

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`The window tests need Debian Chromium at ${CHROMIUM} (apt-get install -y chromium); they are not skipped without it.`);
  }
  buildRendererIfStale();
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** The headless shell serves out/renderer; build it when it is missing or older than its sources. */
export function buildRendererIfStale(): void {
  const built = path.join(DEFAULT_RENDERER_DIR, 'index.html');
  const newest = (dir: string): number => fs.readdirSync(dir, { withFileTypes: true })
    .map((e) => (e.isDirectory() ? newest(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).mtimeMs))
    .reduce((a, b) => Math.max(a, b), 0);
  const sources = Math.max(newest(path.join(root, 'src-renderer')), newest(path.join(root, 'src-shared')), fs.statSync(path.join(root, 'vite.renderer.config.ts')).mtimeMs);
  if (fs.existsSync(built) && fs.statSync(built).mtimeMs >= sources) return;
  execFileSync(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'vite.renderer.config.ts', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
}

export interface Serve {
  proc: ChildProcess;
  url: string;
  token: string;
  dataDir: string;
  /** The page's address for a view: `at('#/lanes')`. The token travels once, in the first load. */
  at(hash?: string): string;
  stop(): Promise<void>;
}

export async function startServe(dataDir: string, extraArgs: string[] = [], token = `e2e-token-${Math.random().toString(36).slice(2, 12)}`): Promise<Serve> {
  const proc = spawn(process.execPath, [BACKLOT, 'serve', '--data', dataDir, '--port', '0', '--token', token, ...extraArgs], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`backlot serve printed no URL; stderr: ${err}`)), 60_000);
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(out);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`backlot serve exited with ${code}; stderr: ${err}`)); });
  });
  const base = new URL(url);
  return {
    proc, url, token, dataDir,
    at: (hash = '') => `${base.origin}/?token=${encodeURIComponent(token)}${hash}`,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

/** The typed API as any client sees it, to check what the window shows against what the host holds. */
// One connection per call (test/http-post.ts): `cli()` blocks this process's event loop.
export async function api<T>(serve: Serve, method: string, payload: unknown = {}): Promise<T> {
  const answer = await postOnce(new URL(`/api/${method}`, serve.url), { Authorization: `Bearer ${serve.token}` }, JSON.stringify(payload));
  if (answer.status !== 200) throw new Error(`${method} answered ${answer.status}: ${answer.text}`);
  return answer.json<T>();
}

/** `backlot <args>` on the library, as a user at a terminal would run it. */
export function cli(args: string[]): string {
  return execFileSync(process.execPath, [BACKLOT, ...args], { cwd: root, encoding: 'utf8' });
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A folder of real spoken clips (the bundled demo clips under other names). */
export function mediaFolder(names: readonly string[]): string {
  const dir = tempDir('backlot-e2e-media-');
  const clips = fs.readdirSync(path.join(root, 'resources/demo')).filter((f) => f.endsWith('.opus')).sort();
  names.forEach((name, i) => fs.copyFileSync(path.join(root, 'resources/demo', clips[i % clips.length]), path.join(dir, `${name}.opus`)));
  return dir;
}

/** Console errors and page errors, so a test can insist there were none (a CSP violation is one). */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}

const require = createRequire(import.meta.url);
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation { id: string; impact: string | null; help: string; nodes: string[] }

/**
 * axe-core run inside the page. It is evaluated through the devtools protocol, which the page's
 * CSP does not govern, so the window keeps its real CSP while it is checked.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, o: object): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
}

/** The serious and critical ones: what a test refuses. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  return (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

const shotDir = process.env.BACKLOT_SCREENSHOTS ? path.resolve(root, process.env.BACKLOT_SCREENSHOTS) : tempDir('backlot-e2e-shots-');

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(shotDir, { recursive: true });
  const file = path.join(shotDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true, animations: 'disabled' });
  return file;
}

export async function newPage(browser: Browser, options: { width?: number; height?: number; colorScheme?: 'light' | 'dark'; locale?: string } = {}): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: options.height ?? 900 }, colorScheme: options.colorScheme ?? 'light', locale: options.locale ?? 'en-US' });
  // A guard, not a measure: on a busy two-core machine beside the rest of the suite a step can
  // take long, and every wait here ends on an event or a DOM state, never on this.
  context.setDefaultTimeout(E2E_STEP_TIMEOUT_MS);
  const page = await context.newPage();
  return { context, page, errors: watchErrors(page) };
}
