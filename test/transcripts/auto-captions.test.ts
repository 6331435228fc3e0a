// Human subtitles before automatic captions, and automatic captions only when allowed
// (docs/transcripts.md "Platform subtitles"). yt-dlp's generic extractor has no automatic captions,
// so a stand-in binary (fixtures/fake-yt-dlp.mjs, a real child process) plays a platform that has
// either kind; the loopback page is only the URL the policy checks.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchSubtitles } from '../../src-main/engines/publisher-transcript/subtitles';

const FAKE = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures', 'fake-yt-dlp.mjs');
const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); delete process.env.FAKE_SUBS; delete process.env.FAKE_LOG; });

async function fetchWith(platformHas: string, autoCaptions: boolean) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-auto-captions-'));
  dirs.push(dir);
  process.env.FAKE_SUBS = platformHas;
  process.env.FAKE_LOG = path.join(dir, 'calls.log');
  try {
    const file = await fetchSubtitles(FAKE, 'http://127.0.0.1:9/watch/x', path.join(dir, 'subs'), 'en', autoCaptions, new AbortController().signal, () => undefined);
    return { file, text: fs.readFileSync(file.file, 'utf8'), calls: fs.readFileSync(process.env.FAKE_LOG, 'utf8').trim().split('\n') };
  } catch (e) {
    return { error: (e as { code: string; message: string }), calls: fs.readFileSync(process.env.FAKE_LOG, 'utf8').trim().split('\n') };
  }
}

describe('automatic captions', () => {
  it('takes a person\'s subtitles first and never asks for automatic ones then', async () => {
    const r = await fetchWith('human,auto', true);
    expect(r.file).toMatchObject({ format: 'text/vtt', language: 'en', automatic: false });
    expect(r.text).toContain('human words');
    expect(r.calls).toEqual(['--write-subs']);
  });

  it('uses automatic captions when the platform has only those and the setting allows them', async () => {
    const r = await fetchWith('auto', true);
    expect(r.file).toMatchObject({ automatic: true });
    expect(r.text).toContain('auto words');
    expect(r.calls).toEqual(['--write-subs', '--write-auto-subs']);
  });

  it('refuses with SUBTITLES_NONE when only automatic captions exist and the setting does not allow them', async () => {
    const r = await fetchWith('auto', false);
    expect(r.error).toMatchObject({ code: 'SUBTITLES_NONE', message: expect.stringContaining('automatic captions are off: transcripts.autoCaptions') });
    expect(r.calls).toEqual(['--write-subs']);
  });
});
