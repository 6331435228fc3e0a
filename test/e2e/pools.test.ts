// The Pools page against a real `backlot serve` and a real redis-server (docs/window.md "Pools"):
// a bad name refused with its code's sentence, a pool added through the window with its join file
// and its one command, the page current after a change made by the CLI while the user was away,
// and a pool removed after the confirm (its join file gone, so the name can be added again).
// Every wait is on a DOM state or an answer, never on time.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { openDatabase } from '../../src-main/db/connection';
import { checkPoolName } from '../../src-main/pools/pool-spec';
import { isBacklotError } from '../../src-shared/errors';
import { freePort, startRedis, type TestRedis } from '../pools/redis-server';
import { api, cli, launchChromium, newPage, startServe, tempDir, type Serve, E2E_TEST_TIMEOUT_MS } from './support';

let browser: Browser | undefined;
let redis: TestRedis | undefined;
let serve: Serve | undefined;
let data: string;
let redisDir: string;

beforeAll(async () => {
  browser = await launchChromium();
  redisDir = tempDir('backlot-e2e-pools-redis-');
  redis = await startRedis(redisDir);
  data = tempDir('backlot-e2e-pools-');
  openDatabase(path.join(data, 'backlot.sqlite')).close();
  // Redis as `backlot transport serve` would have recorded it, through the CLI as a user would.
  cli(['settings', 'set', 'transport.redisUrl', `redis://backlot-admin@127.0.0.1:${redis.port}`, '--data', data]);
  cli(['settings', 'set', 'transport.redisPassword', redis.password, '--data', data]);
  cli(['settings', 'set', 'pools.workerListen', `127.0.0.1:${await freePort()}`, '--restart-ok', '--data', data]);
  serve = await startServe(data, ['--engines', 'test']);
}, 180_000);

afterAll(async () => {
  await serve?.stop();
  await browser?.close();
  await redis?.stop();
  if (data) fs.rmSync(data, { recursive: true, force: true });
  if (redisDir) fs.rmSync(redisDir, { recursive: true, force: true });
});

/** The sentence the host gives for a refused name: the CLI's own. */
function refusal(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (e) {
    if (isBacklotError(e)) return { code: e.code, message: e.message };
  }
  throw new Error('expected a refusal');
}

interface PoolsState { pools: { name: string; lanes: string[]; slots: Record<string, number>; joinFile: string }[]; doorOpen: boolean }

describe('the Pools page', () => {
  it('adds a pool with its command, stays current, refuses a bad name and removes a pool', async () => {
    const { context, page } = await newPage(browser!);
    await page.goto(serve!.at('#/pools'));
    await page.getByRole('heading', { level: 1, name: 'Pools' }).waitFor();
    await page.getByTestId('pools-empty').waitFor();

    // A bad name: the CLI's code and sentence, and nothing made.
    await page.getByTestId('pool-name').fill('Studio!');
    await page.locator('input[data-lane="cpu"]').check();
    await page.getByTestId('pool-add').click();
    const bad = refusal(() => checkPoolName('Studio!'));
    await page.locator('.pool-add .error-code').filter({ hasText: bad.code }).waitFor();
    expect(await page.locator('.pool-add .error-message').textContent()).toBe(bad.message);
    expect((await api<PoolsState>(serve!, 'pools.list')).pools).toEqual([]);

    await page.getByTestId('pool-name').fill('studio');
    await page.locator('input[data-slots="cpu"]').fill('2');
    await page.getByTestId('pool-add').click();
    const studio = page.locator('section.pool[data-pool="studio"]');
    // The pool, or a refusal named in the failure rather than a bare timeout.
    await page.locator('section.pool[data-pool="studio"], .pool-add .error-banner').first().waitFor();
    expect(await page.locator('.pool-add .error-banner').count(), await page.locator('.pool-add').innerText()).toBe(0);
    const joinFile = path.join(data, 'pools', 'studio.join');
    expect(await studio.getByTestId('pool-join-file').textContent()).toBe(joinFile);
    expect(await studio.getByTestId('pool-command').textContent()).toBe('backlot worker --join studio.join');
    expect(await studio.getByTestId('pool-lanes').textContent()).toBe('CPU: 2 slots');
    expect(await studio.getByTestId('pool-workers').textContent()).toBe('0 live workers');
    expect(fs.statSync(joinFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(joinFile, 'utf8'))).toMatchObject({ pool: 'studio', lanes: ['cpu'], slots: { cpu: 2 } });
    // This host started without a pool: it says to restart so the worker door opens.
    await page.getByTestId('pools-restart').waitFor();
    expect(await api<PoolsState>(serve!, 'pools.list')).toMatchObject({ doorOpen: false, pools: [{ name: 'studio', lanes: ['cpu'], slots: { cpu: 2 }, joinFile }] });
    // The form is empty again for the next pool.
    expect(await page.getByTestId('pool-name').inputValue()).toBe('');

    // Away to the lanes page; meanwhile the CLI adds a pool. Back: the page shows it.
    await page.getByRole('navigation').getByRole('link', { name: 'Lanes and work' }).click();
    await page.locator('section.lane').first().waitFor();
    cli(['pool', 'add', 'attic', '--lanes', 'gpu', '--join-file', path.join(data, 'attic.join'), '--data', data]);
    await page.getByRole('navigation').getByRole('link', { name: 'Pools' }).click();
    await page.locator('section.pool[data-pool="attic"]').waitFor();
    expect(await page.locator('section.pool').evaluateAll((els) => els.map((e) => e.getAttribute('data-pool')))).toEqual(['attic', 'studio']);

    // A name taken: POOL_EXISTS with its sentence.
    await page.getByTestId('pool-name').fill('studio');
    await page.locator('input[data-lane="gpu"]').check();
    await page.getByTestId('pool-add').click();
    await page.locator('.pool-add .error-code').filter({ hasText: 'POOL_EXISTS' }).waitFor();
    expect(await page.locator('.pool-add .error-message').textContent()).toBe('A pool named "studio" exists already; remove it first or choose another name.');

    // Remove, after the confirm: gone from the page and the host, and its join file with it.
    await studio.locator('[data-action="remove"]').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(fs.existsSync(joinFile)).toBe(true);
    await studio.locator('[data-action="remove"]').click();
    await page.getByTestId('pool-remove-confirm').click();
    await studio.waitFor({ state: 'detached' });
    expect((await api<PoolsState>(serve!, 'pools.list')).pools.map((p) => p.name)).toEqual(['attic']);
    expect(fs.existsSync(joinFile)).toBe(false);
    // A join file the CLI wrote elsewhere is left alone, as `backlot pool remove` does.
    await page.locator('section.pool[data-pool="attic"] [data-action="remove"]').click();
    await page.getByTestId('pool-remove-confirm').click();
    await page.getByTestId('pools-empty').waitFor();
    expect(fs.existsSync(path.join(data, 'attic.join'))).toBe(true);

    // The same name again (the form kept the lanes of the refused try: gpu): its Redis user and
    // join file went with it, so it is added anew.
    await page.getByTestId('pool-name').fill('studio');
    await page.getByTestId('pool-add').click();
    await studio.waitFor();
    expect(await studio.getByTestId('pool-lanes').textContent()).toBe('GPU: as many slots as its workers offer');
    await context.close();
  }, E2E_TEST_TIMEOUT_MS);
});
