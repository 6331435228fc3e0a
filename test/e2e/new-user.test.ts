// What a new user trips on (issue 20), in Debian's Chromium against `backlot serve` on the test
// engines: files named like media that cannot be read show as items that say why and are counted
// by the rescan; a view left while work ends and rows arrive shows the host's current rows and
// states on return, without a reload; refusals and settings read as sentences, labels and sizes;
// on the production engines a waiting item names the paused cpu lane, not the GPU lane that cannot
// run here. Every wait is for a DOM state the host's events produce.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, launchChromium, mediaFolder, newPage, root, screenshot, startServe, tempDir, type Serve, E2E_TEST_TIMEOUT_MS } from './support';

vi.setConfig({ testTimeout: E2E_TEST_TIMEOUT_MS, hookTimeout: E2E_TEST_TIMEOUT_MS });

type ItemsList = { total: number; items: { id: string; title: string }[] };

let browser: Browser;
let serve: Serve;
let folder: string;
let channel: string;
beforeAll(async () => {
  browser = await launchChromium();
  serve = await startServe(tempDir('backlot-e2e-newuser-'), ['--engines', 'test']);
  // Paused from the start, so what the page first shows is known; the second test resumes it.
  await api(serve, 'lanes.pause', { lane: '*' });
  folder = mediaFolder(['Alpha talk', 'Beta talk']);
  fs.writeFileSync(path.join(folder, 'Gamma notes.mp3'), 'a text file that only has an audio name\n');
  fs.writeFileSync(path.join(folder, 'Delta.wav'), '');
  channel = (await api<{ channel: { id: string } }>(serve, 'library.add', { source: folder, title: 'New user folder' })).channel.id;
}, 180_000);
afterAll(async () => {
  await serve?.stop();
  await browser?.close();
  fs.rmSync(serve.dataDir, { recursive: true, force: true });
  fs.rmSync(folder, { recursive: true, force: true });
});

const row = (page: Page, title: string) => page.locator('.item-row').filter({ has: page.locator('.item-title', { hasText: new RegExp(`^${title}$`) }) });
const badge = (page: Page, title: string, operation: string, words: string) =>
  row(page, title).locator(`.state-badge[data-operation="${operation}"] .visually-hidden`).filter({ hasText: new RegExp(`^${words}$`) });
const nav = (page: Page, name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true });

describe('files that look like media but cannot be read', () => {
  it('are items that say why, and the rescan counts them', async () => {
    const { context, page, errors } = await newPage(browser);
    await page.goto(serve.at(`#/library/${channel}`));
    await row(page, 'Gamma notes').waitFor();
    await row(page, 'Delta').waitFor();
    await row(page, 'Gamma notes').locator('.state-badge[data-operation="transcribe"][data-state="deferred"]').waitFor();

    await page.getByRole('button', { name: /^Rescan/ }).click();
    await page.getByTestId('scan-summary').filter({ hasText: /0 added, 0 changed, 0 removed\. 2 unreadable/ }).waitFor();

    await row(page, 'Gamma notes').locator('.item-title').click();
    const why = page.locator('.work-table tr[data-operation="transcribe"] td.why');
    await page.locator('.work-table tr[data-operation="transcribe"] td.why[data-code="MEDIA_UNREADABLE"]').waitFor();
    expect(await why.textContent()).toMatch(/could not be read as audio or video/);
    // A folder's file is the item's own media: its download says so, not "none yet".
    expect(await page.locator('.work-table tr[data-operation="download"] td.why').textContent()).toMatch(/the media is the folder's own file/);
    expect(await page.locator('.work-table tr[data-operation="download"]').textContent()).toMatch(/none needed \(the folder's own file\)/);
    await nav(page, 'Library').click();
    await row(page, 'Delta').locator('.item-title').click();
    await page.locator('.work-table tr[data-operation="transcribe"] td.why[data-code="MEDIA_EMPTY"]').waitFor();
    expect(await page.locator('.work-table tr[data-operation="transcribe"] td.why').textContent()).toMatch(/is empty \(0 bytes\)/);
    // No player for a file that cannot play: the page says why instead.
    expect(await page.getByTestId('unplayable').getAttribute('data-code')).toBe('MEDIA_EMPTY');
    expect(await page.getByTestId('media').count()).toBe(0);
    await screenshot(page, 'item-unreadable');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('a view visited again', () => {
  it('shows the rows and states of now after work ended and rows arrived while another view was on screen', async () => {
    const { context, page, errors } = await newPage(browser);
    // The Library unfiltered, as its link opens it: coming back by the link changes no filter.
    await page.goto(serve.at('#/library'));
    await badge(page, 'Alpha talk', 'transcribe', 'Transcribe: Missing').waitFor();
    await page.getByTestId('item-count').filter({ hasText: /^4 of 4 items$/ }).waitFor();
    await row(page, 'Alpha talk').locator('.item-title').click();
    await page.locator('.work-table tr[data-operation="transcribe"] .state-badge[data-state="missing"]').waitFor();

    // Away on the Lanes page while a new file is scanned in and all the work runs to its end.
    await nav(page, 'Lanes and work').click();
    await page.locator('section.lane').first().waitFor();
    fs.copyFileSync(path.join(root, 'resources/demo', fs.readdirSync(path.join(root, 'resources/demo')).filter((f) => f.endsWith('.opus')).sort()[0]), path.join(folder, 'Epsilon talk.opus'));
    const scanned = await api<{ scanned: { added: number }[] }>(serve, 'library.scan', { channel });
    expect(scanned.scanned[0].added).toBe(1);
    await api(serve, 'lanes.resume', { lane: '*' });

    // A second window, opened now, follows the work live: its digests done are the work's end.
    const watcher = await newPage(browser);
    await watcher.page.goto(serve.at(`#/library/${channel}`));
    for (const title of ['Alpha talk', 'Beta talk', 'Epsilon talk']) await badge(watcher.page, title, 'digest', 'Digest: Done').waitFor({ timeout: 240_000 });
    const listed = await api<ItemsList>(serve, 'items.list', { offset: 0, limit: 10, channels: [channel] });
    expect(listed.total).toBe(5);
    await watcher.context.close();

    // Back to the Library in the first window, by its link (no reload): the rows and states of now.
    await nav(page, 'Library').click();
    await page.getByTestId('item-count').filter({ hasText: /^5 of 5 items$/ }).waitFor();
    await row(page, 'Epsilon talk').waitFor();
    for (const title of ['Alpha talk', 'Beta talk', 'Epsilon talk']) {
      await badge(page, title, 'transcribe', 'Transcribe: Done').waitFor();
      await badge(page, title, 'digest', 'Digest: Done').waitFor();
    }
    // And the item page: its operations as they are now.
    await row(page, 'Alpha talk').locator('.item-title').click();
    await page.locator('.work-table tr[data-operation="digest"] .state-badge[data-state="done"]').waitFor();
    // The test engines' outputs are not transcripts: the host refuses to read them as one (4xx), which the page shows.
    expect(errors.filter((e) => !/status of 4\d\d/.test(e))).toEqual([]);
    await context.close();
  });
});

describe('sentences, labels and sizes rather than codes and keys', () => {
  it('a refusal reads as a sentence with its code in a details line; a setting has a label and a size', async () => {
    const { context, page } = await newPage(browser);
    await page.goto(serve.at('#/library'));
    await page.getByRole('button', { name: 'Add a source…' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add a source' });
    await page.getByRole('textbox', { name: 'Folder path or address' }).fill(`${folder}-not-there`);
    await page.keyboard.press('Enter');
    const alert = dialog.getByRole('alert');
    await alert.waitFor();
    // The sentence comes first and does not start with the code; the code stays, as a detail.
    const message = (await alert.locator('.error-message').textContent()) ?? '';
    expect(message).toMatch(/^[A-Z][a-z]/);
    expect(message).not.toMatch(/^[A-Z_]{4,}\b/);
    expect(await alert.locator('.error-details .error-code').textContent()).toMatch(/^[A-Z_]+$/);
    await page.keyboard.press('Escape');

    await page.goto(serve.at('#/settings/diskGate.drainingBelowBytes'));
    const setting = page.locator('.setting[data-key="diskGate.drainingBelowBytes"]');
    await setting.waitFor();
    expect(await setting.locator('.setting-label').textContent()).toBe('Disk gate › draining below');
    expect(await setting.locator('.setting-id').textContent()).toBe('diskGate.drainingBelowBytes');
    expect(await setting.getByTestId('setting-size').textContent()).toBe('50 GB');
    await setting.getByRole('textbox').fill('2500000000');
    await setting.getByTestId('setting-size').filter({ hasText: /^2\.5 GB$/ }).waitFor();
    await context.close();
  });
});

describe('reasons that point the right way, on the production engines (no usable GPU here)', () => {
  let prod: Serve;
  let clips: string;
  beforeAll(async () => {
    prod = await startServe(tempDir('backlot-e2e-newuser-prod-'));
    // Only the cpu lane is paused: the GPU lane cannot run at all on this machine.
    await api(prod, 'lanes.pause', { lane: 'cpu' });
    clips = mediaFolder(['Quiet talk']);
    await api(prod, 'library.add', { source: clips, title: 'Quiet folder' });
  });
  afterAll(async () => {
    await prod?.stop();
    fs.rmSync(prod.dataDir, { recursive: true, force: true });
    fs.rmSync(clips, { recursive: true, force: true });
  });

  it('names the paused cpu lane, the GPU lane only after "Also:", and says the GPU lane\'s slots in one sentence', async () => {
    const { context, page, errors } = await newPage(browser);
    const listed = await api<ItemsList>(prod, 'items.list', { offset: 0, limit: 10 });
    await page.goto(prod.at(`#/item/${encodeURIComponent(listed.items[0].id)}`));
    const why = page.locator('.work-table tr[data-operation="transcribe"] td.why[data-code="LANE_PAUSED"]');
    await why.waitFor();
    const sentence = (await why.textContent())!.trim();
    expect(sentence).toMatch(/^The CPU lane is paused: nothing new starts on it until you resume it\. Also: /);
    expect(sentence).toMatch(/Also: The engine on the GPU lane failed its check \(NO_USABLE_GPU\)/);
    const explained = await api<{ reason: { code: string; params: { lane: string } } }>(prod, 'explain.get', { item: listed.items[0].id, operation: 'transcribe' });
    expect(explained.reason).toMatchObject({ code: 'LANE_PAUSED', params: { lane: 'cpu' } });

    await page.getByRole('navigation').getByRole('link', { name: 'Lanes and work', exact: true }).click();
    const gpu = page.locator('section.lane[data-lane="gpu"]');
    await gpu.getByTestId('lane-state').filter({ hasText: /^Cannot start$/ }).waitFor();
    expect(await gpu.locator('.lane-hold').getAttribute('data-code')).toBe('LANE_NO_SLOTS');
    expect(await gpu.locator('.lane-hold').textContent()).toBe('The GPU lane cannot run here: no usable GPU was found, so the 1 slot set in Settings (lanes.gpu.slots) cannot be used.');
    expect(await gpu.locator('.lane-slots').count()).toBe(0);
    await screenshot(page, 'lanes-no-gpu');
    expect(errors).toEqual([]);
    await context.close();
  });
});
