// Rules, settings, languages, themes and the keyboard in Debian's Chromium against `backlot serve`:
// the policy tree edited with a mistake (named by the host's own validator, not savable) and a fix
// (saved through tree.set), nodes added and moved, the what-if preview beside the stored tree with
// its lane timelines; a setting refused as typed and then saved; the window switched to Hungarian
// (reasons, dates and numbers too) and kept so after a reload; the dark theme; and one keyboard-only
// path through the views. axe-core finds nothing serious on any of them, in either theme.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, launchChromium, mediaFolder, newPage, screenshot, seriousViolations, startServe, tempDir, type Serve, E2E_TEST_TIMEOUT_MS } from './support';

vi.setConfig({ testTimeout: E2E_TEST_TIMEOUT_MS, hookTimeout: E2E_TEST_TIMEOUT_MS });

let browser: Browser;
let serve: Serve;
let folder: string;
beforeAll(async () => {
  browser = await launchChromium();
  serve = await startServe(tempDir('backlot-e2e-rules-'), ['--engines', 'test']);
  await api(serve, 'lanes.pause', { lane: '*' });
  folder = mediaFolder(['Council meeting', 'Weekly sermon', 'School concert', 'Bird song', 'Ferry timetable', 'Old interview']);
  await api(serve, 'library.add', { source: folder, title: 'Town archive' });
}, 180_000);
afterAll(async () => {
  await serve?.stop();
  await browser?.close();
  fs.rmSync(serve.dataDir, { recursive: true, force: true });
  fs.rmSync(folder, { recursive: true, force: true });
});

type Tree = { id: string; weight?: number; children?: Tree[] };
const find = (t: Tree, id: string): Tree | undefined => (t.id === id ? t : t.children?.map((c) => find(c, id)).find(Boolean));
const node = (page: Page, id: string) => page.locator(`.tree-node[data-node="${id}"]`).first();
const field = (page: Page, id: string, name: string) => node(page, id).locator(`:scope > fieldset [data-field="${name}"]`);

describe('the Rules page', () => {
  it('names a mistake as it is typed and refuses to save it; saves the fix', async () => {
    const { context, page, errors } = await newPage(browser, { height: 1100 });
    await page.goto(serve.at('#/rules'));
    await page.getByTestId('tree-status').filter({ hasText: 'The tree is valid.' }).waitFor();
    const save = page.getByRole('button', { name: 'Save the tree' });
    expect(await save.isDisabled()).toBe(true);

    await field(page, 'backlog-downloads', 'weight').fill('0');
    await page.getByTestId('tree-status').filter({ hasText: 'The tree cannot be saved:' }).waitFor();
    expect(await page.getByTestId('tree-status').textContent()).toContain('Policy node "backlog-downloads": weight must be a number > 0 (got 0).');
    expect(await field(page, 'backlog-downloads', 'weight').getAttribute('aria-invalid')).toBe('true');
    expect(await save.isDisabled()).toBe(true);

    // A second kind of mistake: an id used twice, named with both places.
    await field(page, 'backlog-downloads', 'weight').fill('3');
    await field(page, 'backlog-digests', 'id').fill('backlog-other');
    await page.getByTestId('tree-status').filter({ hasText: 'is declared twice' }).waitFor();
    expect(await save.isDisabled()).toBe(true);
    // The validator marks the later of the two; the one typed over is put back by its place in the tree.
    expect(await page.locator('.tree-node-bad').getAttribute('data-path')).toBe('2.3');
    await page.locator('.tree-node[data-path="2.2"] > fieldset [data-field="id"]').fill('backlog-digests');
    await page.getByTestId('tree-status').filter({ hasText: 'The tree is valid.' }).waitFor();

    expect(await seriousViolations(page)).toEqual([]);
    await save.click();
    await page.getByTestId('announcer').filter({ hasText: 'The tree was saved as version 2.' }).waitFor();
    const stored = await api<{ version: number; tree: Tree }>(serve, 'tree.get');
    expect(stored.version).toBe(2);
    expect(find(stored.tree, 'backlog-downloads')?.weight).toBe(3);
    expect(find(stored.tree, 'backlog')?.children?.map((c) => c.id)).toEqual(['backlog-downloads', 'backlog-transcription', 'backlog-digests', 'backlog-other']);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('adds, moves and removes nodes, keeping focus on the node that moved', async () => {
    const { context, page, errors } = await newPage(browser, { height: 1100 });
    await page.goto(serve.at('#/rules'));
    await page.getByTestId('tree-status').filter({ hasText: 'The tree is valid.' }).waitFor();
    await page.getByRole('button', { name: 'Add after: sync' }).click();
    // The new node has a fresh id and focus; it can be named, given work and moved up.
    await page.waitForFunction(() => (document.activeElement as HTMLInputElement | null)?.value === 'node-1');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('digests-first');
    await field(page, 'digests-first', 'match.operation').selectOption('digest');
    await page.getByRole('button', { name: 'Move up: digests-first' }).click();
    await page.waitForFunction(() => document.querySelector('.tree > .tree-node > .tree-children > .tree-node')?.getAttribute('data-node') === 'digests-first');
    await page.waitForFunction(() => (document.activeElement as HTMLInputElement | null)?.value === 'digests-first');
    await page.getByRole('button', { name: 'Into the node above: new-uploads' }).click();
    await page.waitForFunction(() => document.querySelector('.tree-node[data-node="sync"] .tree-node[data-node="new-uploads"]') !== null);
    // sync became a group and needs nothing more to be valid; undo both by removing and discarding.
    await page.getByRole('button', { name: 'Remove: digests-first' }).click();
    await page.waitForFunction(() => !document.querySelector('.tree-node[data-node="digests-first"]'));
    await page.getByRole('button', { name: 'Discard the changes' }).click();
    await page.waitForFunction(() => document.querySelector('.tree > .tree-node > .tree-children > .tree-node:nth-child(2)')?.getAttribute('data-node') === 'new-uploads');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('previews the edited tree beside the stored one on the live library, with the lanes’ timelines', async () => {
    const { context, page, errors } = await newPage(browser, { height: 1200 });
    await page.goto(serve.at('#/rules'));
    await page.getByTestId('tree-status').filter({ hasText: 'The tree is valid.' }).waitFor();
    // Make the backlog passive group strict and oldest-first: a different schedule to compare.
    await field(page, 'backlog', 'mode').selectOption('strict');
    await page.getByTestId('run-preview').click();
    const table = page.getByTestId('preview-table');
    await table.waitFor();
    expect(await page.getByTestId('preview-library').textContent()).toContain('6 items in 1 channel.');
    const row = (op: string) => table.locator(`tr[data-operation="${op}"]`);
    // Everything is paused now, so nothing would finish under either tree: the preview says so, and says why.
    expect(await row('transcribe').locator('td').first().textContent()).toBe('6');
    expect(await row('transcribe').locator('td .finish').allTextContents()).toEqual(['never (6 held)', 'never (6 held)']);
    expect(await row('transcribe').locator('td .hold').first().getAttribute('data-code')).toBe('LANE_PAUSED');

    // Resumed (the live work starts too), the simulated backlog finishes and the new upload is done.
    await api(serve, 'lanes.resume', { lane: '*' });
    await page.getByTestId('run-preview').click();
    await table.locator('tr[data-operation="transcribe"] td').nth(1).filter({ hasNotText: 'never' }).waitFor({ timeout: 60_000 });
    const upload = await table.locator('tr[data-operation="new-upload"] td').allTextContents();
    expect(upload[1]).toMatch(/\d/);
    expect(upload[2]).toMatch(/\d/);
    // Two timelines, drawn by ECharts onto a canvas, each with a sentence per lane for screen readers.
    const charts = page.locator('.timeline-chart');
    expect(await charts.count()).toBe(2);
    await charts.first().locator('canvas').waitFor();
    expect(await charts.first().getAttribute('aria-label')).toMatch(/^Timeline of the lanes: what each slot runs over time\. .*CPU: finishes in/);

    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'rules');
    expect(errors).toEqual([]);
    await api(serve, 'lanes.pause', { lane: '*' });
    await context.close();
  });
});

describe('the Settings page', () => {
  it('refuses a value as it is typed, saves a good one, and asks before a restart-only change', async () => {
    const { context, page, errors } = await newPage(browser);
    await page.goto(serve.at('#/settings/retry.maxAttempts'));
    const setting = page.locator('.setting[data-key="retry.maxAttempts"]');
    await setting.waitFor();
    // The link to a key brings its field into focus.
    await page.waitForFunction(() => document.activeElement?.id === 'setting-retry-maxAttempts');
    const input = setting.getByRole('textbox', { name: 'retry.maxAttempts' });
    await input.fill('0');
    await setting.locator('.setting-problem').filter({ hasText: 'retry.maxAttempts must be at least 1' }).waitFor();
    expect(await setting.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    await input.fill('5');
    await setting.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('announcer').filter({ hasText: 'retry.maxAttempts was saved.' }).waitFor();
    const list = await api<{ settings: { key: string; value: unknown }[] }>(serve, 'settings.list');
    expect(list.settings.find((s) => s.key === 'retry.maxAttempts')?.value).toBe(5);

    const lease = page.locator('.setting[data-key="claims.leaseS"]');
    expect(await lease.locator('.badge').textContent()).toBe('After a restart');
    await lease.getByRole('textbox', { name: 'claims.leaseS' }).fill('90');
    const save = lease.getByRole('button', { name: 'Save' });
    expect(await save.isDisabled()).toBe(true);
    await lease.getByRole('checkbox', { name: 'I will restart Backlot for this to apply' }).check();
    await save.click();
    await page.getByTestId('announcer').filter({ hasText: 'claims.leaseS was saved; it applies after a restart.' }).waitFor();

    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'settings');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('languages, themes and the keyboard', () => {
  it('switches to Hungarian (names, reasons, dates, numbers) and stays so after a reload', async () => {
    const { context, page, errors } = await newPage(browser);
    await page.goto(serve.at('#/lanes'));
    await page.locator('section.lane[data-lane="cpu"] .lane-hold').waitFor();
    await page.getByTestId('language').selectOption('hu');
    await page.getByRole('heading', { level: 1, name: 'Sávok és munka' }).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('hu');
    expect(await page.getByRole('navigation', { name: 'Nézetek' }).getByRole('link').allTextContents()).toEqual(['Könyvtár', 'Keresés', 'Beszélők', 'Sávok és munka', 'Gépcsoportok', 'Szabályok', 'Futások', 'Beállítások']);
    expect(await page.locator('section.lane[data-lane="cpu"] .lane-hold').textContent()).toBe('Minden mással együtt szüneteltetve: semmi új nem indul, amíg mindent nem folytatsz.');
    await page.getByTestId('announcer').filter({ hasText: 'Az ablak most magyar nyelvű.' }).waitFor();
    expect(await page.title()).toBe('Sávok és munka · Backlot');

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Sávok és munka' }).waitFor();
    await page.goto(serve.at('#/library'));
    await page.locator('.item-row .item-title').first().waitFor();
    // Hungarian dates read year first ("2026. dec. 1."), and the item count uses its own separators.
    expect(await page.locator('.item-row .item-date').first().textContent()).toMatch(/^\d{4}\. /);
    expect(await page.getByTestId('item-count').textContent()).toBe('6 / 6 elem');
    expect(await page.locator('.item-row[data-index="0"] .state-badge[data-operation="transcribe"] .visually-hidden').textContent()).toMatch(/^Átírás: (Kész|Hiányzik|Fut)$/);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'library-hu');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('follows the OS into the dark theme and keeps the reader’s own choice', async () => {
    const { context, page, errors } = await newPage(browser, { colorScheme: 'dark' });
    await page.goto(serve.at('#/lanes'));
    await page.locator('section.lane').first().waitFor();
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(11, 17, 32)');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'lanes-dark');
    await page.getByRole('combobox', { name: 'Theme' }).selectOption('light');
    await page.waitForFunction(() => getComputedStyle(document.body).backgroundColor === 'rgb(255, 255, 255)');
    expect(await page.locator('html').getAttribute('data-theme')).toBe('light');
    await page.reload();
    await page.locator('section.lane').first().waitFor();
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(255, 255, 255)');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('goes through the views with the keyboard alone: skip link, navigation, pause everything', async () => {
    const { context, page, errors } = await newPage(browser);
    await page.goto(serve.at());
    await page.locator('.item-row .item-title').first().waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to the content');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.id === 'main');

    // Tab from the start of the page to the navigation's Lanes link, then open it with Enter.
    const tabTo = async (text: string) => {
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab');
        if ((await page.evaluate(() => document.activeElement?.textContent?.trim())) === text) return;
      }
      throw new Error(`Tab never reached "${text}"`);
    };
    await page.locator('body').focus();
    await tabTo('Lanes and work');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1' && document.activeElement.textContent === 'Lanes and work');
    await tabTo('Resume everything');
    await page.keyboard.press('Enter');
    await page.getByTestId('pause-all').filter({ hasText: 'Pause everything' }).waitFor();
    expect((await api<{ lanes: { paused: boolean }[] }>(serve, 'lanes.list')).lanes.every((l) => !l.paused)).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByTestId('pause-all').filter({ hasText: 'Resume everything' }).waitFor();
    expect((await api<{ lanes: { paused: boolean }[] }>(serve, 'lanes.list')).lanes.every((l) => l.paused)).toBe(true);

    // Every control on each view has a name a screen reader can say.
    for (const hash of ['#/library', '#/lanes', '#/rules', '#/runs', '#/settings']) {
      await page.goto(serve.at(hash));
      await page.locator('main h1').waitFor();
      await page.locator('main').locator('button, select, input, a').first().waitFor();
      const unnamed = await page.evaluate(() => [...document.querySelectorAll('button, select, input, textarea, a[href]')]
        .filter((el) => !(el as HTMLElement).closest('[aria-hidden="true"]'))
        .filter((el) => {
          const labelled = el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') || (el as HTMLInputElement).labels?.length || el.getAttribute('title');
          return !labelled && (el.textContent ?? '').trim() === '';
        }).map((el) => el.outerHTML.slice(0, 120)));
      expect(unnamed, hash).toEqual([]);
    }
    expect(errors).toEqual([]);
    await context.close();
  });
});
