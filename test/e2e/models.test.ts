// Settings → Models (issue 22 §2) in Debian's Chromium against `backlot serve`, with a loopback
// mirror serving a tiny whisper model the test writes (test/models/fixtures/model-mirror.ts): a click
// installs it, the bar shows its progress while the mirror holds the download half-way, leaving for
// the Library and coming back shows the install where it stands, then "Installed"; remove asks first
// and leaves it not installed; a checksum mismatch is shown with its sentence. The first-run screen
// shows the host's suggestion exactly when it makes one. Every wait is on a DOM state or the mirror.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, launchChromium, newPage, seriousViolations, startServe, tempDir, type Serve, E2E_TEST_TIMEOUT_MS } from './support';
import { EXTRA_CATALOG_ENV } from '../../src-main/models/index';
import { SUGGEST_CORES_ENV } from '../../src-main/api/models-handlers';
import type { ModelEntryDto, ModelSuggestionDto } from '../../src-shared/api/models-contract';
import { GOOD, WRONG, startModelMirror, type ModelMirror } from '../models/fixtures/model-mirror';

vi.setConfig({ testTimeout: E2E_TEST_TIMEOUT_MS, hookTimeout: E2E_TEST_TIMEOUT_MS });

let browser: Browser;
let serve: Serve;
let mirror: ModelMirror;

beforeAll(async () => {
  mirror = await startModelMirror();
  // The serve child inherits the test seam: the extra catalog names the mirror's files.
  process.env[EXTRA_CATALOG_ENV] = mirror.catalogFile;
  // Judged as an eight-core machine, so the first-run card is shown on any test machine.
  process.env[SUGGEST_CORES_ENV] = '8';
  browser = await launchChromium();
  serve = await startServe(tempDir('backlot-e2e-models-'), ['--engines', 'test', '--no-dispatch']);
  await api(serve, 'settings.set', { key: 'models.baseUrl', value: mirror.base });
}, 180_000);
afterAll(async () => {
  mirror?.release();
  await serve?.stop();
  await browser?.close();
  delete process.env[EXTRA_CATALOG_ENV];
  delete process.env[SUGGEST_CORES_ENV];
  await mirror?.close();
  if (serve) fs.rmSync(serve.dataDir, { recursive: true, force: true });
});

const row = (page: Page, name: string) => page.locator(`li.model[data-model="${name}"]`);

async function available(): Promise<{ models: ModelEntryDto[]; suggestion: ModelSuggestionDto | null }> {
  return api(serve, 'models.available');
}

/** Away to the Library and back to Settings by the window's own links, without a reload. */
async function awayAndBack(page: Page): Promise<void> {
  const nav = page.getByRole('navigation');
  await nav.getByRole('link', { name: 'Library' }).click();
  await page.getByRole('heading', { level: 1, name: 'Library' }).waitFor();
  await nav.getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
}

describe('Settings → Models', () => {
  it('installs a model with progress that survives leaving the view, removes it after asking, and shows a checksum mismatch', async () => {
    const { context, page, errors } = await newPage(browser, { height: 1400 });
    await page.goto(serve.at('#/settings'));
    await page.getByRole('heading', { level: 2, name: 'Models' }).waitFor();
    const good = row(page, GOOD);
    await good.locator('.model-state').filter({ hasText: 'Not installed' }).waitFor();
    // A catalog model is said with its size, its languages and what it is good for.
    const base = row(page, 'whisper-base.en');
    await base.locator('.model-size').filter({ hasText: /^about \d/ }).waitFor();
    expect(await base.locator('.model-languages').textContent()).toBe('English');
    expect(await base.locator('.model-good-for').textContent()).toBe('The default: a fair English transcript on two processor cores.');

    // The mirror holds the download half-way: the bar shows it moving, not done.
    mirror.holdNext();
    await good.getByRole('button', { name: `Install: ${GOOD}` }).click();
    await mirror.held();
    const bar = good.getByRole('progressbar', { name: `Installing ${GOOD}` });
    await good.locator('.progress-pct').filter({ hasText: /[1-9]\d?\s?%/ }).waitFor();
    expect(Number(await bar.getAttribute('aria-valuenow'))).toBeGreaterThan(0);
    expect(Number(await bar.getAttribute('aria-valuenow'))).toBeLessThan(100);
    await good.locator('.model-state').filter({ hasText: 'Installing…' }).waitFor();

    // Away and back while it installs: the host's state, not a fresh "Not installed".
    await awayAndBack(page);
    await good.locator('.progress-pct').filter({ hasText: /[1-9]\d?\s?%/ }).waitFor();
    await good.locator('.model-state').filter({ hasText: 'Installing…' }).waitFor();

    mirror.release();
    await good.locator('.model-state.model-installed').filter({ hasText: 'Installed' }).waitFor();
    expect(await good.getByRole('progressbar').count()).toBe(0);
    expect((await available()).models.find((m) => m.name === GOOD)?.installed).toBe(true);
    await awayAndBack(page);
    await good.locator('.model-state.model-installed').filter({ hasText: 'Installed' }).waitFor();

    // Remove asks first, then the model is not installed and can be installed again.
    await good.getByRole('button', { name: `Remove… ${GOOD}` }).click();
    const dialog = page.getByRole('dialog', { name: `Remove ${GOOD}?` });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Remove the model' }).click();
    await good.locator('.model-state').filter({ hasText: 'Not installed' }).waitFor();
    await good.getByRole('button', { name: `Install: ${GOOD}` }).waitFor();
    expect((await available()).models.find((m) => m.name === GOOD)?.installed).toBe(false);

    // A file whose checksum is not the catalog's: its sentence and code, nothing installed, a retry offered.
    const wrong = row(page, WRONG);
    await wrong.getByRole('button', { name: `Install: ${WRONG}` }).click();
    await wrong.locator('.model-failed .error-code').filter({ hasText: 'MODEL_CHECKSUM_MISMATCH' }).waitFor();
    expect(await wrong.locator('.model-failed .error-message').textContent()).toMatch(/^The model file's SHA-1 is [0-9a-f]{40}, not the 0{40} given; nothing was installed\.$/);
    await wrong.getByRole('button', { name: `Try again: ${WRONG}` }).waitFor();
    expect((await available()).models.find((m) => m.name === WRONG)?.installed).toBe(false);

    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the first-run screen suggests a model for this machine, and its install button says why it could not install', async () => {
    const { suggestion } = await available();
    // No GPU: the default English model for eight cores; a usable GPU: the larger one.
    expect(suggestion).not.toBeNull();
    expect(suggestion).toMatchObject(suggestion!.because === 'gpu' ? { name: 'whisper-large-v3-turbo-q5_0' } : { name: 'whisper-base.en', cores: 8 });
    const { context, page, errors } = await newPage(browser);
    await page.goto(serve.at('#/library'));
    await page.getByRole('heading', { name: 'Your library is empty' }).waitFor();
    const card = page.locator(`.model-suggestion[data-model="${suggestion!.name}"]`);
    await card.getByRole('heading', { name: 'A better transcription model' }).waitFor();
    expect(await card.textContent()).toContain(suggestion!.because === 'gpu' ? 'graphics card' : '8 processor cores');
    // The mirror serves only the test's files: the upstream path is 404 there, said in one sentence.
    await card.getByRole('button', { name: `Install ${suggestion!.name}` }).click();
    await card.locator('.error-code').filter({ hasText: 'MODEL_DOWNLOAD_FAILED' }).waitFor();
    expect(await card.locator('.error-message').textContent()).toMatch(/^The server answered 404 for http:\/\/127\.0\.0\.1:\d+\/.+\.$/);
    await card.getByRole('button', { name: `Install ${suggestion!.name}` }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
  it('says the models and the suggestion in Hungarian', async () => {
    const { suggestion } = await available();
    const { context, page, errors } = await newPage(browser, { locale: 'hu-HU' });
    await page.goto(serve.at('#/settings'));
    await page.getByRole('heading', { level: 2, name: 'Modellek' }).waitFor();
    const base = row(page, 'whisper-base.en');
    await base.locator('.model-good-for').filter({ hasText: 'Az alapértelmezett: tűrhető angol átirat két processzormagon.' }).waitFor();
    expect(await base.locator('.model-languages').textContent()).toBe('angol');
    expect(await base.locator('.model-size').textContent()).toMatch(/^kb\. \d/);
    await page.getByRole('navigation').getByRole('link', { name: 'Könyvtár' }).click();
    const card = page.locator(`.model-suggestion[data-model="${suggestion!.name}"]`);
    await card.getByRole('heading', { name: 'Jobb átíró modell' }).waitFor();
    expect(await card.textContent()).toContain(suggestion!.because === 'gpu' ? 'videókártya' : '8 processzormag');
    await card.getByRole('button', { name: `${suggestion!.name} telepítése` }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
