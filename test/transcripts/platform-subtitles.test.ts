// A platform item's own subtitles end to end (docs/transcripts.md "Platform subtitles"), with the
// project's real yt-dlp and loopback pages only: a channel listed by yt-dlp's generic extractor
// (an RSS playlist linking HTML5 pages), each page a <video> with <track kind="subtitles">. The
// page with English subtitles gets them as its transcript (a person's, with the voice as the
// speaker); the page with only German ones is refused SUBTITLES_NONE and pocketsphinx takes it.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, createLibrary, makeSpeech, removeTempDirs, serveBytes, serveText, startServer, tempDir } from '../acquisition/fixtures';
import { transcriptRecord, type TranscriptRecord } from '../../src-shared/transcript/record';

afterAll(() => removeTempDirs());

const page = (title: string, tracks: readonly { lang: string; src: string }[]) => `<!DOCTYPE html><html><head><title>${title}</title></head><body>
<video controls><source src="/media/${title}.mp3" type="audio/mpeg">
${tracks.map((t) => `<track kind="subtitles" src="${t.src}" srclang="${t.lang}" label="${t.lang}">`).join('\n')}
</video></body></html>`;

describe("a platform's own subtitles", () => {
  it('fetches human subtitles through yt-dlp for the language asked for; an item without them goes to pocketsphinx', async () => {
    const server = await startServer();
    try {
      const media = tempDir('subs-media');
      for (const [name, words] of [['subbed', 'good morning and welcome back'], ['foreign', 'only german subtitles here']]) {
        server.route(`/media/${name}.mp3`, serveBytes(makeSpeech(path.join(media, `${name}.mp3`), words)));
      }
      server.route('/watch/subbed', serveText(page('subbed', [{ lang: 'en', src: '/subs/subbed.en.vtt' }, { lang: 'de', src: '/subs/subbed.de.vtt' }]), 'text/html'));
      server.route('/watch/foreign', serveText(page('foreign', [{ lang: 'de', src: '/subs/foreign.de.vtt' }]), 'text/html'));
      server.route('/subs/subbed.en.vtt', serveText('WEBVTT\n\n00:00:00.200 --> 00:00:02.000\n<v Host>Good morning and welcome back.\n', 'text/vtt'));
      server.route('/subs/subbed.de.vtt', serveText('WEBVTT\n\n00:00:00.200 --> 00:00:02.000\nGuten Morgen.\n', 'text/vtt'));
      server.route('/subs/foreign.de.vtt', serveText('WEBVTT\n\n00:00:00.200 --> 00:00:02.000\nNur Deutsch.\n', 'text/vtt'));
      // The channel as yt-dlp's generic extractor lists it: an RSS playlist whose items link the pages.
      server.route('/channel', serveText(`<?xml version="1.0"?><rss version="2.0"><channel><title>Loop Platform</title><link>${server.url}/</link><description>d</description>
        <item><title>subbed</title><guid>subbed</guid><link>${server.url}/watch/subbed</link><pubDate>Tue, 02 Jan 2024 10:00:00 GMT</pubDate></item>
        <item><title>foreign</title><guid>foreign</guid><link>${server.url}/watch/foreign</link><pubDate>Mon, 01 Jan 2024 10:00:00 GMT</pubDate></item>
      </channel></rss>`));

      const data = createLibrary(tempDir('subs-data'));
      for (const [k, v] of [['politeness.minIntervalS', '0'], ['diskGate.shutBelowBytes', '0'], ['diskGate.drainingBelowBytes', '0']]) {
        expect((await cli(['settings', 'set', k, v, '--data', data])).code).toBe(0);
      }
      const added = await cli(['library', 'add', `${server.url}/channel`, '--kind', 'platform', '--data', data, '--json']);
      expect(added.stderr).toBe('');
      const ran = await cli(['run', '--until-idle', '--timeout', '540', '--data', data, '--json']);
      expect(ran.code, ran.stderr).toBe(0);
      const units = ran.stdout.trim().split('\n').map((l) => JSON.parse(l) as { unit?: { operation: string; title: string; outcome: string; code?: string } })
        .flatMap((l) => (l.unit && l.unit.operation === 'transcribe' && l.unit.outcome !== 'done' ? [[l.unit.title, l.unit.code]] : []));
      expect(units).toEqual([['foreign', 'SUBTITLES_NONE']]);

      const db = new Database(path.join(data, 'backlot.sqlite'), { readonly: true });
      let records: Record<string, TranscriptRecord>;
      let fallbacks: Record<string, string | null>;
      try {
        const rows = db.prepare(`SELECT i.title, i.transcript_fallback, w.state, w.output_path FROM work w JOIN items i ON i.id = w.item_id WHERE w.operation = 'transcribe'`)
          .all() as { title: string; transcript_fallback: string | null; state: string; output_path: string }[];
        expect(rows.map((r) => [r.title, r.state]).sort()).toEqual([['foreign', 'done'], ['subbed', 'done']]);
        records = Object.fromEntries(rows.map((r) => [r.title, transcriptRecord.parse(JSON.parse(fs.readFileSync(r.output_path, 'utf8')))]));
        fallbacks = Object.fromEntries(rows.map((r) => [r.title, r.transcript_fallback]));
      } finally {
        db.close();
      }
      expect(records.subbed).toMatchObject({
        engine: 'publisher-transcript', model: 'text/vtt', language: 'en',
        // The page's URL as the listing keeps it (yt-dlp's own fragment may follow).
        origin: { kind: 'platform-subtitles', url: expect.stringMatching(new RegExp(`^${server.url}/watch/subbed(#|$)`)) as unknown as string, format: 'text/vtt', automatic: false, estimatedWords: 5 },
      });
      expect(records.subbed.segments.map((s) => [s.start, s.end, s.speaker, s.text])).toEqual([[0.2, 2, 'publisher:Host', 'Good morning and welcome back.']]);
      expect(records.foreign.engine).toBe('pocketsphinx');
      expect(JSON.parse(fallbacks.foreign!)).toEqual({ code: 'SUBTITLES_NONE', url: expect.stringMatching(new RegExp(`^${server.url}/watch/foreign(#|$)`)) });
      // Only the English file was fetched: the German ones were not asked for.
      expect(server.hits.filter((h) => h.path.startsWith('/subs/')).map((h) => h.path)).toEqual(['/subs/subbed.en.vtt']);
    } finally {
      await server.close();
    }
  }, 600_000);
});
