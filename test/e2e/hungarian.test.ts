// Every view in Hungarian (issue 20 item 9, docs/i18n.md "Checking for English"): the window is
// opened with a Hungarian browser on a library whose work is done, each view is brought to a state
// with content (an item page with its work, a run with its log, the rules' preview, every setting),
// and its visible text is checked two ways, so that neither a new English message nor a string
// hard-coded outside the catalog slips through:
//  1. no fragment of an English catalog message (or of the host's English setting descriptions)
//     whose Hungarian differs appears on the page;
//  2. no English function word ("the", "and", "with", ...) appears in the text the window writes.
// What people and engines wrote (titles, transcripts, digests, log lines, codes and keys meant for
// bug reports) is not the window's text and is left out by its elements; so is a host refusal,
// which is English by design and marked lang="en" with its code beside it.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, launchChromium, mediaFolder, newPage, screenshot, startServe, tempDir, type Serve, E2E_TEST_TIMEOUT_MS } from './support';
import { en } from '../../src-renderer/src/i18n/en';
import { hu } from '../../src-renderer/src/i18n/hu';
import { SETTINGS, SETTING_KEYS } from '../../src-shared/settings/settings-schema';

vi.setConfig({ testTimeout: E2E_TEST_TIMEOUT_MS, hookTimeout: E2E_TEST_TIMEOUT_MS });

let browser: Browser;
let serve: Serve;
let folder: string;
let item: string;

/** Text that is not the window's own words: people's titles, engine output, codes, typed values. */
const NOT_THE_WINDOWS = ['body [lang="en"]', '.item-title', '.segment', '.digest', '.log-text', '.hit', 'code', 'kbd', 'input', 'textarea', 'option', '.setting-id', '.run-title', 'canvas'];
const ENGLISH_WORDS = /\b(the|and|with|this|that|from|was|were|has|have|not|for|of|to|into|your|you|items?|channels?|runs?)\b/i;

function strings(o: object): string[] {
  return Object.values(o).flatMap((v) => (typeof v === 'string' ? [v] : strings(v as object)));
}

/** Literal pieces of the English messages that Hungarian says otherwise: two words or more, at least 10 characters. */
function englishFragments(): string[] {
  const huText = new Set(strings(hu).flatMap((s) => s.split(' | ')));
  const out = new Set<string>();
  for (const message of strings(en)) {
    for (const form of message.split(' | ')) {
      if (huText.has(form)) continue;
      for (const piece of form.split(/\{[^}]*\}/)) {
        const p = piece.trim().replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '');
        if (p.length >= 10 && p.includes(' ')) out.add(p);
      }
    }
  }
  for (const key of SETTING_KEYS) out.add(SETTINGS[key].description);
  return [...out];
}

async function windowText(page: Page): Promise<string[]> {
  return page.evaluate((skip) => {
    const lines: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const parent = n.parentElement;
      if (!parent || parent.closest(['script', 'style', 'template', ...skip].join(','))) continue;
      const text = n.textContent?.replace(/\s+/g, ' ').trim() ?? '';
      if (text !== '') lines.push(text);
    }
    for (const el of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
      if (el.closest(skip.join(','))) continue;
      for (const a of ['aria-label', 'title', 'placeholder']) {
        const v = el.getAttribute(a);
        if (v) lines.push(v);
      }
    }
    return lines;
  }, NOT_THE_WINDOWS);
}

/** What is English on a view: catalog fragments and lines with English words (empty when none). */
async function englishOn(page: Page, fragments: readonly string[]): Promise<string[]> {
  const lines = await windowText(page);
  const text = lines.join('\n');
  // An example value in a sentence (`{"lane":"download"}`, `<data>/media`) is code, not words.
  const words = (l: string) => l.replace(/[[{<]\S*[\]}>]/g, '');
  return [...new Set([...fragments.filter((f) => text.includes(f)), ...lines.filter((l) => ENGLISH_WORDS.test(words(l)))])];
}

beforeAll(async () => {
  browser = await launchChromium();
  // The bundled clips under Hungarian names (the second is the dialog of two voices), on this
  // machine's own engines: real transcripts, speakers and digests to show.
  folder = mediaFolder(['Kenyérsütés', 'Heti időjárás']);
  serve = await startServe(tempDir('backlot-e2e-hu-'));
  await api(serve, 'library.add', { source: folder, title: 'Hangjegyzetek' });
  const items = await api<{ items: { id: string; title: string }[] }>(serve, 'items.list', { offset: 0, limit: 10 });
  item = items.items.find((i) => i.title === 'Heti időjárás')!.id;
}, 180_000);
afterAll(async () => {
  await serve?.stop();
  await browser?.close();
  if (serve) fs.rmSync(serve.dataDir, { recursive: true, force: true });
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
});

describe('the window in Hungarian', () => {
  it('shows no English on any view', async () => {
    const fragments = englishFragments();
    const { context, page, errors } = await newPage(browser, { locale: 'hu-HU', height: 1400 });
    const found: Record<string, string[]> = {};

    // The item page once all its work is done (a DOM state the host's events bring), then the rest.
    await page.goto(serve.at(`#/item/${encodeURIComponent(item)}`));
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('.work-table tbody tr')];
      return rows.length > 0 && rows.every((r) => r.querySelector('.state-badge')?.getAttribute('data-state') === 'done');
    }, undefined, { timeout: 240_000 });
    expect(await page.locator('html').getAttribute('lang')).toBe('hu');
    await page.locator('.digest .moment').first().waitFor();
    await page.locator('.segment').first().waitFor();
    // The people the host has not been told about are named in Hungarian.
    const people = (await page.locator('.speakers .speaker').allTextContents()).map((n) => n.trim());
    expect(people.length).toBeGreaterThan(0);
    expect(people.filter((n) => !/^\d+\. beszélő$/.test(n))).toEqual([]);
    found['the item page'] = await englishOn(page, fragments);

    await page.goto(serve.at('#/library'));
    await page.locator('.item-row .item-title').first().waitFor();
    found['the library'] = await englishOn(page, fragments);

    // A channel's panel, the dialog that removes it (closed unanswered) and the one that adds a source.
    const { channels } = await api<{ channels: { id: string }[] }>(serve, 'library.list');
    await page.goto(serve.at(`#/library/${encodeURIComponent(channels[0].id)}`));
    await page.getByRole('button', { name: 'Hangjegyzetek eltávolítása…' }).click();
    await page.getByRole('dialog').waitFor();
    found['removing a channel'] = await englishOn(page, fragments);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    found['a channel'] = await englishOn(page, fragments);
    await page.getByRole('button', { name: 'Forrás hozzáadása…' }).click();
    await page.getByRole('dialog').waitFor();
    found['adding a source'] = await englishOn(page, fragments);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    // Search with hits: a word of the item's transcript, as the engine heard it.
    const view = await api<{ transcript: { segments: { words: { w: string }[] }[] } }>(serve, 'transcript.get', { item });
    const word = view.transcript.segments.flatMap((x) => x.words).map((w) => w.w).find((w) => /^[a-z]{5,}$/.test(w))!;
    await page.goto(serve.at(`#/search?q=${word}`));
    await page.getByRole('heading', { level: 1, name: 'Keresés' }).waitFor();
    await page.locator(`.hit-group[data-item="${item}"] .hit`).first().waitFor();
    found['search'] = await englishOn(page, fragments);

    await page.goto(serve.at('#/speakers'));
    await page.getByRole('heading', { level: 1, name: 'Beszélők' }).waitFor();
    await page.locator('.speaker-name').first().waitFor();
    found['speakers'] = await englishOn(page, fragments);

    await page.goto(serve.at('#/pools'));
    await page.getByRole('heading', { level: 1, name: 'Gépcsoportok' }).waitFor();
    await page.getByTestId('pools-empty').waitFor();
    // A chosen lane shows its slots field too.
    await page.locator('input[data-lane="cpu"]').check();
    await page.locator('input[data-slots="cpu"]').waitFor();
    found['pools'] = await englishOn(page, fragments);

    await page.goto(serve.at('#/lanes'));
    await page.locator('section.lane').first().waitFor();
    await page.locator('section.spend').waitFor();
    found['lanes'] = await englishOn(page, fragments);
    await screenshot(page, 'lanes-hu');

    const runs = await api<{ runs: { id: number }[] }>(serve, 'runs.list', { limit: 1 });
    expect(runs.runs.length).toBeGreaterThan(0);
    await page.goto(serve.at(`#/runs/${runs.runs[0].id}`));
    await page.getByTestId('log-count').waitFor();
    found['a run and its log'] = await englishOn(page, fragments);

    // Every run's log after the real work (issue 20 items 8 and 9): each line in Hungarian, said from
    // its key; none left as the engine's English text (marked lang="en") or with English words.
    const all = await api<{ runs: { id: number }[] }>(serve, 'runs.list', { limit: 100 });
    let keyed = 0;
    let chunkRun: number | undefined;
    for (const run of all.runs) {
      const { lines } = await api<{ lines: { id: number; key: string | null }[] }>(serve, 'runs.logs', { run: run.id });
      if (lines.length === 0) continue;
      await page.goto(serve.at(`#/runs/${run.id}`));
      // The run's own lines on screen, first and last, as the host's answer lists them (a run still open may add more).
      await page.waitForFunction(([id, first, last, n]) => {
        const shown = [...document.querySelectorAll(`.run-detail[data-run="${id}"] .log-line`)];
        return shown.length >= n && shown[0].getAttribute('data-line') === String(first) && shown.some((l) => l.getAttribute('data-line') === String(last));
      }, [run.id, lines[0].id, lines[lines.length - 1].id, lines.length] as const);
      const said = await page.locator('.log-text').evaluateAll((els) => els.map((e) => ({ text: e.textContent ?? '', english: e.getAttribute('lang') === 'en', key: e.getAttribute('data-key') })));
      keyed += said.filter((l) => l.key !== null).length;
      if (said.some((l) => l.key === 'chunkDone')) chunkRun ??= run.id;
      if (said.some((l) => l.key === 'wordsAttributed')) await screenshot(page, 'run-log-hu');
      const english = said.filter((l) => l.english || ENGLISH_WORDS.test(l.text) || fragments.some((f) => l.text.includes(f))).map((l) => l.text);
      if (english.length > 0) found[`the log of run #${run.id}`] = english;
    }
    expect(keyed).toBeGreaterThan(0);

    // The log's text filter matches what the reader sees (docs/i18n.md "Filtering the log by text"):
    // "szakasz" is only in the Hungarian of a transcription's chunk lines, never in their English.
    expect(chunkRun).toBeDefined();
    await page.goto(serve.at(`#/runs/${chunkRun}`));
    await page.locator(`.run-detail[data-run="${chunkRun}"] .log-text[data-key="chunkDone"]`).first().waitFor();
    const before = await page.locator('.log-line').count();
    await page.getByTestId('log-text').fill('szakasz');
    await page.waitForFunction((n) => {
      const shown = [...document.querySelectorAll('.log-line .log-text')];
      return shown.length > 0 && shown.length < n && shown.every((l) => l.textContent?.includes('szakasz'));
    }, before);
    await page.getByTestId('log-text').fill('');

    await page.goto(serve.at('#/rules'));
    await page.getByTestId('tree-status').waitFor();
    await page.getByTestId('run-preview').click();
    await page.getByTestId('preview-channels').waitFor();
    found['rules and the preview'] = await englishOn(page, fragments);
    await screenshot(page, 'rules-hu');

    await page.goto(serve.at('#/settings'));
    await page.locator('.setting').first().waitFor();
    // A value refused as it is typed: the refusal leads with Hungarian words.
    await page.locator('#setting-retry-maxAttempts').fill('0');
    await page.locator('.setting[data-key="retry.maxAttempts"] .setting-problem').filter({ hasText: 'Ez az érték így nem menthető:' }).waitFor();
    found['settings'] = await englishOn(page, fragments);
    await screenshot(page, 'settings-hu');

    // Every view is visited before the verdict, so one run names all that is left in English.
    expect(Object.fromEntries(Object.entries(found).filter(([, v]) => v.length > 0))).toEqual({});

    // The check itself sees English where there is some: the same page in English is full of it.
    await page.getByTestId('language').selectOption('en');
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    expect((await englishOn(page, fragments)).length).toBeGreaterThan(20);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('a running unit in Hungarian', () => {
  let held: Serve;
  let clips: string;
  let hold: string;
  beforeAll(async () => {
    // Every unit of the test engines holds after its first progress report while the hold file is
    // there (the test engine's holdWhile), so the lanes page is read while a unit runs, not raced.
    const dir = tempDir('backlot-e2e-hu-progress-');
    hold = `${dir}/hold`;
    fs.writeFileSync(hold, '');
    clips = mediaFolder(['Reggeli hírek']);
    process.env.BACKLOT_TEST_FAULTS = JSON.stringify({ '*': { holdWhile: hold } });
    held = await startServe(`${dir}/data`, ['--engines', 'test']);
    delete process.env.BACKLOT_TEST_FAULTS;
    await api(held, 'library.add', { source: clips, title: 'Hírek' });
  }, 180_000);
  afterAll(async () => {
    if (hold) fs.rmSync(hold, { force: true });
    await held?.stop();
    if (held) fs.rmSync(held.dataDir, { recursive: true, force: true });
    if (clips) fs.rmSync(clips, { recursive: true, force: true });
  });

  it('says its progress message in Hungarian from the key the engine sent', async () => {
    const fragments = englishFragments();
    const { context, page, errors } = await newPage(browser, { locale: 'hu-HU' });
    await page.goto(held.at('#/lanes'));
    // The unit's message on screen as the host's event brought it: keyed (data-key), not the engine's English.
    const message = page.locator('section.lane .unit .progress-message[data-key="chunkOf"]').first();
    await message.waitFor({ timeout: 120_000 });
    const said = (await message.textContent())!.replace(/^\s*·\s*/, '').trim();
    expect(said).toMatch(/^\d+\. szakasz \(\d+ közül\)$/);
    expect(await message.getAttribute('lang')).toBeNull();
    // Its key and params stay at hand for a bug report; the English text is not what the reader sees.
    expect(await message.getAttribute('title')).toMatch(/^chunkOf \{"chunk":\d+,"of":\d+\}$/);
    expect(said).not.toMatch(/chunk/i);
    expect(await englishOn(page, fragments)).toEqual([]);
    await screenshot(page, 'lanes-progress-hu');
    fs.rmSync(hold, { force: true });
    expect(errors).toEqual([]);
    await context.close();
  });
});
