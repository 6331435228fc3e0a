// Rules by name (issue 20 item 5) in Debian's Chromium against `backlot serve`: a channel typed by
// its name in the tree editor is stored by its id and the rule matches its items; a name that is no
// channel is refused with a sentence; a leaf that matches nothing says so, also after its channel was
// removed while another view was shown; and the what-if preview shows, per node and per channel,
// when work starts and finishes before and after the change, with the holds of what is left named;
// run again, it shows a progress bar while the previous answer stays on screen.
// The host runs with --no-dispatch, so nothing runs live and every wait is on a DOM state.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, launchChromium, mediaFolder, newPage, screenshot, seriousViolations, startServe, tempDir, type Serve, E2E_TEST_TIMEOUT_MS } from './support';

vi.setConfig({ testTimeout: E2E_TEST_TIMEOUT_MS, hookTimeout: E2E_TEST_TIMEOUT_MS });

let browser: Browser;
let serve: Serve;
const folders: string[] = [];
const ids = new Map<string, string>();

beforeAll(async () => {
  browser = await launchChromium();
  serve = await startServe(tempDir('backlot-e2e-rules-by-name-'), ['--engines', 'test', '--no-dispatch']);
  const sources: [string, string[]][] = [
    ['newcomer-media', ['Welcome', 'First steps', 'Questions']],
    ['old-archive', ['Old one', 'Old two']],
    ['town-archive', ['Council', 'Ferry', 'Concert']],
  ];
  for (const [title, names] of sources) {
    const folder = mediaFolder(names);
    folders.push(folder);
    await api(serve, 'library.add', { source: folder, title });
  }
  const { channels } = await api<{ channels: { id: string; title: string }[] }>(serve, 'library.list');
  for (const c of channels) ids.set(c.title, c.id);
}, 180_000);
afterAll(async () => {
  await serve?.stop();
  await browser?.close();
  if (serve) fs.rmSync(serve.dataDir, { recursive: true, force: true });
  for (const f of folders) fs.rmSync(f, { recursive: true, force: true });
});

type Tree = { id: string; match?: { channel?: string[] }; children?: Tree[] };
const find = (t: Tree, id: string): Tree | undefined => (t.id === id ? t : t.children?.map((c) => find(c, id)).find(Boolean));
const node = (page: Page, id: string) => page.locator(`.tree-node[data-node="${id}"]`).first();
const own = (page: Page, id: string, selector: string) => node(page, id).locator(`:scope > fieldset ${selector}`);

async function choose(page: Page, id: string, name: string): Promise<void> {
  const input = own(page, id, '[data-field="match.channel"]');
  await input.fill(name);
  await input.press('Enter');
}

describe('rules by name', () => {
  it('chooses a channel by its name, stores its id, refuses a name that is no channel, and warns about a leaf that matches nothing', async () => {
    const newcomer = ids.get('newcomer-media')!;
    expect(newcomer).toBeDefined();
    expect(newcomer).not.toBe('newcomer-media');
    const { context, page, errors } = await newPage(browser, { height: 1400 });
    await page.goto(serve.at('#/rules'));
    await page.getByTestId('tree-status').filter({ hasText: 'The tree is valid.' }).waitFor();

    await page.getByRole('button', { name: 'Add after: sync' }).click();
    await node(page, 'node-1').waitFor();
    // A new leaf with no match takes everything: it says how much.
    await own(page, 'node-1', '[data-testid="leaf-count"]').filter({ hasText: 'Matches 8 items now.' }).waitFor();
    await choose(page, 'node-1', 'newcomer-media');
    await own(page, 'node-1', '.picker-chip').filter({ hasText: 'newcomer-media' }).waitFor();
    await own(page, 'node-1', '[data-testid="leaf-count"]').filter({ hasText: 'Matches 3 items now.' }).waitFor();

    // A typed name that matches nothing is refused in words and never stored.
    await choose(page, 'node-1', 'no-such-channel');
    await own(page, 'node-1', '[data-testid="picker-problem"]').filter({ hasText: 'No channel is named “no-such-channel”; choose one from the list.' }).waitFor();
    expect(await own(page, 'node-1', '.picker-chip').count()).toBe(1);
    expect(await own(page, 'node-1', '[data-field="match.channel"]').getAttribute('aria-invalid')).toBe('true');

    await page.getByRole('button', { name: 'Add after: node-1' }).click();
    await node(page, 'node-2').waitFor();
    await choose(page, 'node-2', 'old-archive');
    await own(page, 'node-2', '[data-testid="leaf-count"]').filter({ hasText: 'Matches 2 items now.' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Save the tree' }).click();
    await page.getByTestId('announcer').filter({ hasText: 'The tree was saved as version 2.' }).waitFor();
    const stored = await api<{ tree: Tree }>(serve, 'tree.get');
    expect(find(stored.tree, 'node-1')?.match?.channel).toEqual([newcomer]);
    expect(find(stored.tree, 'node-2')?.match?.channel).toEqual([ids.get('old-archive')]);
    // The host agrees the stored rule matches the channel's items.
    const matched = await api<{ leaves: { node: string; count: number }[] }>(serve, 'tree.matches', { tree: stored.tree });
    expect(matched.leaves.find((l) => l.node === 'node-1')?.count).toBe(3);

    // Away to the Library; the old archive is removed meanwhile; back on Rules, its leaf matches nothing.
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Library' }).click();
    await page.locator('.item-row .item-title').first().waitFor();
    await api(serve, 'library.remove', { channel: ids.get('old-archive') });
    await page.getByTestId('item-count').filter({ hasText: /^6 of 6 items$/ }).waitFor();
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Rules' }).click();
    await own(page, 'node-2', '[data-testid="leaf-warning"]').filter({ hasText: 'This leaf matches no item in the library: it will take no work.' }).waitFor();
    await own(page, 'node-2', '.picker-chip').filter({ hasText: 'not in the library' }).waitFor();
    await own(page, 'node-1', '[data-testid="leaf-count"]').filter({ hasText: 'Matches 3 items now.' }).waitFor();
    await screenshot(page, 'rules-by-name');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('previews the difference per node and per channel, before and after, and names the holds', async () => {
    const town = ids.get('town-archive')!;
    const { context, page, errors } = await newPage(browser, { height: 1600 });
    await page.goto(serve.at('#/rules'));
    await page.getByTestId('tree-status').filter({ hasText: 'The tree is valid.' }).waitFor();
    // Keep only sync and the newcomer's leaf: the town archive's items are then taken by no rule.
    for (const id of ['new-uploads', 'backlog', 'node-2']) {
      await page.getByRole('button', { name: `Remove: ${id}`, exact: true }).click();
      await node(page, id).waitFor({ state: 'detached' });
    }
    await page.getByTestId('tree-status').filter({ hasText: 'The tree is valid.' }).waitFor();
    await page.getByTestId('run-preview').click();
    const table = page.getByTestId('preview-table');
    await table.waitFor();

    const transcribe = table.locator('tr[data-operation="transcribe"]');
    const [before, after] = await transcribe.locator('td .finish').allTextContents();
    expect(before).toMatch(/\d/);
    expect(before).not.toContain('never');
    expect(after).toBe('never (3 held)');
    const hold = transcribe.locator('td').nth(2).locator('.hold');
    expect(await hold.getAttribute('data-code')).toBe('NOT_MATCHED');
    expect(await hold.textContent()).toContain('No rule in the scheduling tree takes it, so it never gets picked.');
    expect(await hold.textContent()).toContain('(3 units)');

    // Per node: the removed groups worked before and start nowhere after, marked as changed.
    const backlog = page.getByTestId('preview-nodes').locator('tr[data-key="new-uploads"]');
    expect(await backlog.getAttribute('data-changed')).toBe('true');
    const cells = await backlog.locator('td').allTextContents();
    expect(cells[0]).toMatch(/\d/);
    expect(cells[1]).toBe('not started');
    expect(cells[4]).toBe('changed');
    // Per channel, by name: the town archive finished before and never starts after.
    const townRow = page.getByTestId('preview-channels').locator(`tr[data-key="${town}"]`);
    expect(await townRow.locator('th').textContent()).toBe('town-archive');
    const townCells = await townRow.locator('td').allTextContents();
    expect(townCells[2]).toMatch(/\d/);
    expect(townCells[3]).toBe('not started');
    expect(townCells[4]).toBe('changed');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'rules-preview-diff');

    // Away and back: the unsaved draft and its preview are still those of this draft.
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Lanes and work' }).click();
    await page.getByRole('heading', { level: 1, name: 'Lanes and work' }).waitFor();
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Rules' }).click();
    await page.getByTestId('preview-channels').locator(`tr[data-key="${town}"][data-changed="true"]`).waitFor();
    expect(await node(page, 'backlog').count()).toBe(0);
    // An edit leaves the answer on screen, marked as for an earlier draft; running the preview
    // again shows a progress bar while the previous answer stays until the new one replaces it.
    await page.getByRole('button', { name: 'Discard the changes' }).click();
    await page.getByTestId('preview-outdated').waitFor();
    expect(await page.getByTestId('preview-table').count()).toBe(1);
    await page.evaluate(() => {
      const seen = { bar: false, tableGone: false };
      (window as unknown as { __previewSeen: typeof seen }).__previewSeen = seen;
      new MutationObserver(() => {
        if (document.querySelector('[data-testid="preview-progress"]')) seen.bar = true;
        if (!document.querySelector('[data-testid="preview-table"]')) seen.tableGone = true;
      }).observe(document.body, { subtree: true, childList: true });
    });
    await page.getByTestId('run-preview').click();
    await page.getByTestId('preview-outdated').waitFor({ state: 'detached' });
    await page.getByTestId('preview-progress').waitFor({ state: 'detached' });
    expect(await page.evaluate(() => (window as unknown as { __previewSeen: unknown }).__previewSeen)).toEqual({ bar: true, tableGone: false });
    // The answer is now the stored tree's against itself: nothing changed.
    expect(await page.getByTestId('preview-channels').locator('tr[data-changed="true"]').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});
