// Issue 20 item 3 in Debian's Chromium: `backlot serve` restarted under an open page comes back on
// the same address (kept in the data folder) and the page reconnects by itself and reads the host's
// state again, without a reload (docs/window.md "Restarting the headless shell").
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser } from 'playwright-core';
import { BACKLOT, launchChromium, newPage, root, tempDir, E2E_TEST_TIMEOUT_MS } from './support';

vi.setConfig({ testTimeout: E2E_TEST_TIMEOUT_MS, hookTimeout: E2E_TEST_TIMEOUT_MS });

let browser: Browser;
beforeAll(async () => { browser = await launchChromium(); }, 180_000);
afterAll(async () => { await browser?.close(); });

let proc: ChildProcess | undefined;
afterAll(() => { if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL'); });

/** `backlot serve` as a person starts it: no --port, no token, so the kept address is used. */
function serve(dataDir: string, extra: string[] = []): Promise<string> {
  const env = { ...process.env };
  delete env.BACKLOT_TOKEN;
  const child = spawn(process.execPath, [BACKLOT, 'serve', '--data', dataDir, '--engines', 'test', '--no-dispatch', ...extra], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  proc = child;
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)\n/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`backlot serve exited with ${code}; stderr: ${err}`)));
  });
}

async function stopServe(): Promise<void> {
  const child = proc!;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

describe('restarting the host under an open page', () => {
  it('comes back on the same address and the page shows the new state without a reload', async () => {
    const dataDir = tempDir('backlot-e2e-restart-');
    try {
      const first = await serve(dataDir);
      const { context, page } = await newPage(browser);
      await page.goto(first);
      await page.getByRole('region', { name: 'Your library is empty' }).waitFor();
      // Set on this document only: still there afterwards means the page was never reloaded.
      await page.evaluate(() => { (window as unknown as { __sameDocument: boolean }).__sameDocument = true; });

      await stopServe();
      // The restarted host has the demo library, which the page can only learn by reconnecting.
      const second = await serve(dataDir, ['--demo']);
      expect(second).toBe(first);
      await page.locator('.item-row .item-title').filter({ hasText: 'Welcome to Backlot' }).waitFor();
      expect((await page.locator('.item-row .item-title').allTextContents()).sort()).toEqual(['Cooking notes - bread', 'The weather report', 'Welcome to Backlot']);
      expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
      await context.close();
      await stopServe();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
