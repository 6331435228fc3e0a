// The transcript, the digest and search in Debian's Chromium against `backlot serve` on the
// production engines: real speech (the demo clips) transcribed by pocketsphinx, diarized, attributed
// and digested on this machine. On the item page a click on a word seeks the player there, the
// segment playing is marked, the exports download, a key moment seeks; "/" leads to Search, a word
// of the transcript is found with its match marked and opens the item at its moment; a speaker
// renamed in the Speakers view shows by the new name in the transcript and in search; a sample of
// a voice plays; a person's items are listed; an enrolled profile is merged in and then forgotten.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, cli, launchChromium, mediaFolder, newPage, screenshot, seriousViolations, startServe, tempDir, type Serve, E2E_TEST_TIMEOUT_MS } from './support';

vi.setConfig({ testTimeout: E2E_TEST_TIMEOUT_MS, hookTimeout: E2E_TEST_TIMEOUT_MS });

type TranscriptView = { transcript: { segments: { start: number; speaker: string | null; words: { w: string; start: number }[] }[] }; speakers: Record<string, string> };

let browser: Browser;
let serve: Serve;
let folder: string;
let item: string;
let view: TranscriptView;
/** A real reader's voice from Debian's pocketsphinx-testdata, for a second, enrolled profile. */
const LIBRIVOX_CLIP = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav';

beforeAll(async () => {
  browser = await launchChromium();
  // The bundled clips under these names, in order: the weather report is the dialog of two voices.
  folder = mediaFolder(['Baking bread', 'Weather for the week', 'Welcome talk']);
  serve = await startServe(tempDir('backlot-e2e-transcripts-'));
  await api(serve, 'library.add', { source: folder, title: 'Spoken notes' });
  const items = await api<{ items: { id: string; title: string }[] }>(serve, 'items.list', { offset: 0, limit: 10 });
  item = items.items.find((i) => i.title === 'Weather for the week')!.id;
  // The whole pipeline runs on this machine's engines; its end for this item is its digest on the
  // item page (a DOM state the page reaches by the host's events, never a wait for time).
  const { context, page } = await newPage(browser);
  await openItem(page);
  await context.close();
  view = await api<TranscriptView>(serve, 'transcript.get', { item });
  if (!view.transcript.segments.some((s) => s.speaker !== null)) throw new Error('The diarization found no speaker in the weather report; the speaker tests need one.');
}, 300_000);
afterAll(async () => {
  await serve?.stop();
  await browser?.close();
  fs.rmSync(serve.dataDir, { recursive: true, force: true });
  fs.rmSync(folder, { recursive: true, force: true });
});

const media = (page: Page) => page.evaluate(() => {
  const m = document.querySelector('[data-testid="media"]') as HTMLMediaElement;
  return { time: m.currentTime, paused: m.paused, ready: m.readyState };
});

async function openItem(page: Page, hash = `#/item/${encodeURIComponent(item)}`): Promise<void> {
  await page.goto(serve.at(hash));
  // Done means every operation of the item is done: an attribution another item's speakers
  // superseded is redone, and until then the transcript may show no speaker.
  await page.waitForFunction(() => {
    const rows = [...document.querySelectorAll('.work-table tbody tr')];
    return rows.length > 0 && rows.every((r) => r.querySelector('.state-badge')?.getAttribute('data-state') === 'done');
  }, undefined, { timeout: 240_000 });
  await page.locator('.digest .moment').first().waitFor();
  await page.locator('.segment').first().waitFor();
  await page.waitForFunction(() => ((document.querySelector('[data-testid="media"]') as HTMLMediaElement | null)?.readyState ?? 0) >= 1);
}

describe('the transcript and the digest on the item page', () => {
  it('shows the speakers, seeks on a word, marks the segment playing, and seeks on a key moment', async () => {
    const { context, page, errors } = await newPage(browser, { height: 1100 });
    await openItem(page);
    const speakers = Object.values(view.speakers);
    expect(speakers.length).toBeGreaterThan(0);
    expect(await page.locator('.speakers .speaker').allTextContents()).toEqual(speakers);

    // A word some way in: clicking it plays from there (as Buzz and noScribe do).
    const words = view.transcript.segments.flatMap((s, si) => s.words.map((w) => ({ ...w, si })));
    const target = words[Math.floor(words.length / 2)];
    await page.locator(`.segment[data-segment="${target.si}"] .word[data-start="${target.start}"]`).first().click();
    await page.waitForFunction((t) => { const m = document.querySelector('[data-testid="media"]') as HTMLMediaElement; return !m.paused && m.currentTime >= t - 0.05; }, target.start);
    expect(await page.getByTestId('play').getAttribute('aria-pressed')).toBe('true');

    // Playing moves the marked segment with it (it is the one that started last before the position).
    await page.getByTestId('play').click();
    await page.waitForFunction(() => (document.querySelector('[data-testid="media"]') as HTMLMediaElement).paused);
    const at = (await media(page)).time;
    const expected = view.transcript.segments.reduce((best, s, i) => (s.start <= at + 1e-6 ? i : best), -1);
    await page.locator(`.segment[data-segment="${expected}"][aria-current="true"]`).waitFor();

    // A key moment of the digest seeks there too; its speaker is named.
    const moment = page.locator('.digest .moment').last();
    const start = Number(await moment.getAttribute('data-start'));
    await moment.getByRole('button').click();
    await page.waitForFunction((t) => Math.abs((document.querySelector('[data-testid="media"]') as HTMLMediaElement).currentTime - t) < 0.05, start);
    expect(speakers).toContain((await moment.locator('.moment-speaker').textContent())!.replace(/:$/, ''));

    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'item-transcript');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('downloads every export format of the transcript', async () => {
    const { context, page, errors } = await newPage(browser);
    await openItem(page);
    for (const format of ['srt', 'vtt', 'txt', 'docx', 'json']) {
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: `Download the transcript as ${format.toUpperCase()}` }).click();
      const file = await download;
      expect(file.suggestedFilename()).toBe(`Weather for the week.${format}`);
      const body = fs.readFileSync((await file.path())!);
      switch (format) {
        case 'srt': expect(body.toString('utf8')).toMatch(/^1\r?\n00:00:\d\d,\d{3} --> /); break;
        case 'vtt': expect(body.toString('utf8')).toMatch(/^WEBVTT/); break;
        case 'txt': expect(body.toString('utf8')).toMatch(/^\[00:00:00\] /); break;
        case 'docx': expect(body.subarray(0, 2).toString('latin1')).toBe('PK'); break;
        case 'json': expect(JSON.parse(body.toString('utf8')).segments.length).toBe(view.transcript.segments.length); break;
      }
    }
    await page.getByTestId('announcer').filter({ hasText: 'Weather for the week.json was downloaded.' }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('search', () => {
  it('is reached with "/", finds a word of the transcript with the match marked, and opens the item at its moment', async () => {
    const { context, page, errors } = await newPage(browser);
    await openItem(page);
    await page.locator('main h1').click();
    await page.keyboard.press('/');
    await page.waitForURL(/#\/search/);
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'search-field');

    // A word of this item's transcript, as pocketsphinx heard it.
    const word = view.transcript.segments.flatMap((s) => s.words).map((w) => w.w).find((w) => /^[a-z]{5,}$/.test(w))!;
    await page.keyboard.type(word);
    await page.keyboard.press('Enter');
    const group = page.locator(`.hit-group[data-item="${item}"]`);
    await group.waitFor();
    expect(await group.getByRole('heading').textContent()).toBe('Weather for the week');
    expect((await group.locator('mark').allTextContents()).map((m) => m.toLowerCase())).toContain(word);
    await page.waitForURL(new RegExp(`#/search\\?q=${word}$`));

    const hit = group.locator('.hit').first();
    const link = hit.getByRole('link');
    await link.click();
    await page.waitForURL(/#\/item\/.+\?t=/);
    const t = Number(new URL(page.url().replace('#', '')).searchParams.get('t'));
    // The hit opens at the word's own time in its segment, not at the segment's start.
    const segment = view.transcript.segments.find((s) => Math.abs(s.start - t) < 0.01)!;
    const at = segment.words.find((w) => w.w.toLowerCase() === word.toLowerCase())!.start;
    expect(new URL(page.url().replace('#', '')).searchParams.get('w')).toBe(word.toLowerCase());
    await page.waitForFunction(() => ((document.querySelector('[data-testid="media"]') as HTMLMediaElement | null)?.readyState ?? 0) >= 1);
    await page.waitForFunction((s) => Math.abs((document.querySelector('[data-testid="media"]') as HTMLMediaElement).currentTime - s) < 0.05, at);
    // The segment at that moment is marked, and it holds the word.
    await page.locator('.segment[aria-current="true"]').filter({ hasText: new RegExp(word, 'i') }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('refuses a malformed query as it is typed, in the host parser’s words', async () => {
    const { context, page, errors } = await newPage(browser);
    await page.goto(serve.at('#/search'));
    await page.getByTestId('search-field').fill('"unclosed phrase');
    await page.locator('#search-problem').filter({ hasText: /\S/ }).waitFor();
    expect(await page.getByTestId('search-field').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('button', { name: 'Search', exact: true }).isDisabled()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('the Speakers view', () => {
  const speakerRow = (page: Page, id: string) => page.locator(`tr[data-speaker="${id}"]`);

  it('renames a speaker in place, and the new name shows in the transcript (seen before, on return) and in search', async () => {
    const speakerId = view.transcript.segments.find((s) => s.speaker !== null)!.speaker!;
    const { context, page, errors } = await newPage(browser);
    // The item page first, with the old name; then the Speakers view by its link (no reload).
    await openItem(page);
    await page.locator('.speakers .speaker').filter({ hasText: view.speakers[speakerId] }).first().waitFor();
    await page.getByRole('navigation').getByRole('link', { name: 'Speakers', exact: true }).click();
    const row = speakerRow(page, speakerId);
    await row.waitFor();
    const oldName = (await row.locator('.speaker-name').textContent())!;
    expect(oldName).toBe(view.speakers[speakerId]);
    expect(await seriousViolations(page)).toEqual([]);
    // By keyboard: the rename button, a name typed, Enter; focus comes back to the button.
    await row.getByRole('button', { name: `Rename ${oldName}` }).focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'speaker-name-field');
    await page.keyboard.type('Ada Lovelace');
    await page.keyboard.press('Enter');
    await row.locator('.speaker-name').filter({ hasText: /^Ada Lovelace$/ }).waitFor();
    await page.getByTestId('announcer').filter({ hasText: `${oldName} is now Ada Lovelace.` }).waitFor();
    await page.waitForFunction((id) => document.activeElement === document.querySelector(`tr[data-speaker="${id}"] [data-action="rename"]`), speakerId);
    // Escape leaves the name as it was.
    await row.getByRole('button', { name: 'Rename Ada Lovelace' }).click();
    await page.getByTestId('speaker-name-field').fill('Not this');
    await page.keyboard.press('Escape');
    await row.locator('.speaker-name').filter({ hasText: /^Ada Lovelace$/ }).waitFor();
    await screenshot(page, 'speakers');

    // Back to the item page it showed before (same document): the names of now, without a reload.
    await page.goBack();
    await page.waitForURL(/#\/item\//);
    await page.locator('.speakers .speaker').filter({ hasText: 'Ada Lovelace' }).waitFor();
    expect(await page.locator(`.segment-speaker[data-speaker="${speakerId}"]`).first().textContent()).toBe('Ada Lovelace');
    const word = view.transcript.segments.flatMap((s) => s.words).map((w) => w.w).find((w) => /^[a-z]{5,}$/.test(w))!;
    await page.goto(serve.at(`#/search?q=${word}`));
    await page.locator(`.hit-group[data-item="${item}"] .hit-speaker`).filter({ hasText: 'Ada Lovelace:' }).first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'search');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('plays a sample of a voice, and lists the items the person speaks in', async () => {
    const speakerId = view.transcript.segments.find((s) => s.speaker !== null)!.speaker!;
    const { context, page, errors } = await newPage(browser);
    await page.goto(serve.at('#/speakers'));
    const row = speakerRow(page, speakerId);
    await row.getByRole('button', { name: 'Play a sample of Ada Lovelace' }).click();
    // The sample plays from the stretch the host chose, in an item of the library.
    await page.waitForFunction(() => {
      const a = document.querySelector('[data-testid="sample-audio"]') as HTMLAudioElement;
      return !a.paused && a.currentTime > 0 && a.src.includes('/media/') && /#t=[\d.]+,[\d.]+$/.test(a.src);
    });
    await page.getByTestId('sample-source').filter({ hasText: /^Sample from / }).waitFor();
    const stop = row.getByRole('button', { name: 'Stop the sample of Ada Lovelace' });
    expect(await stop.getAttribute('aria-pressed')).toBe('true');
    await stop.click();
    await page.waitForFunction(() => (document.querySelector('[data-testid="sample-audio"]') as HTMLAudioElement).paused);
    await row.getByRole('button', { name: 'Play a sample of Ada Lovelace' }).waitFor();

    // The items link opens the library filtered to this person.
    const items = (await api<{ speakers: { id: string; items: number }[] }>(serve, 'speakers.list')).speakers.find((s) => s.id === speakerId)!.items;
    await row.getByRole('link', { name: new RegExp(`^${items} items? where Ada Lovelace speaks$`) }).click();
    await page.waitForURL(new RegExp(`#/library\\?speaker=${speakerId}$`));
    expect(await page.getByTestId('filter-speaker').inputValue()).toBe(speakerId);
    await page.getByTestId('item-count').filter({ hasText: new RegExp(`^\\s*${items} of `) }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('merges an enrolled profile into the person, and forgets them', async () => {
    const speakerId = view.transcript.segments.find((s) => s.speaker !== null)!.speaker!;
    // A second profile, enrolled from a real reader's voice (pocketsphinx-testdata).
    cli(['speakers', 'enrol', '--new', 'The reader', LIBRIVOX_CLIP, '--data', serve.dataDir]);
    const before = (await api<{ speakers: { id: string; name: string; items: number; seconds: number }[] }>(serve, 'speakers.list')).speakers;
    const reader = before.find((s) => s.name === 'The reader')!;
    const ada = before.find((s) => s.id === speakerId)!;
    const { context, page, errors } = await newPage(browser);
    await page.goto(serve.at('#/speakers'));
    await speakerRow(page, reader.id).waitFor();
    await speakerRow(page, speakerId).getByRole('button', { name: 'Merge Ada Lovelace with another profile' }).click();
    const dialog = page.getByRole('dialog', { name: 'Merge into Ada Lovelace' });
    await dialog.waitFor();
    await dialog.getByTestId('merge-other').selectOption(reader.id);
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Merge', exact: true }).click();
    await speakerRow(page, reader.id).waitFor({ state: 'detached' });
    await page.getByTestId('announcer').filter({ hasText: 'The reader was merged into Ada Lovelace.' }).waitFor();
    const merged = (await api<{ speakers: { id: string; items: number; seconds: number }[] }>(serve, 'speakers.list')).speakers.find((s) => s.id === speakerId)!;
    expect(merged.items).toBe(ada.items);
    expect(merged.seconds).toBeGreaterThan(ada.seconds);

    // Forget asks first; Cancel has the focus, and Escape keeps the person.
    await speakerRow(page, speakerId).getByRole('button', { name: 'Forget Ada Lovelace', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Forget Ada Lovelace?' });
    await confirm.waitFor();
    await page.waitForFunction(() => document.activeElement?.textContent === 'Cancel');
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    await speakerRow(page, speakerId).getByRole('button', { name: 'Forget Ada Lovelace', exact: true }).click();
    await confirm.getByRole('button', { name: 'Forget', exact: true }).click();
    await speakerRow(page, speakerId).waitFor({ state: 'detached' });
    const left = (await api<{ speakers: { id: string }[] }>(serve, 'speakers.list')).speakers;
    expect(left.map((s) => s.id)).not.toContain(speakerId);
    // The transcript no longer names the forgotten person.
    await openItem(page);
    await page.locator('.segment').first().waitFor();
    expect(await page.locator('.segment-speaker').allTextContents()).not.toContain('Ada Lovelace');
    expect(errors).toEqual([]);
    await context.close();
  });
});
