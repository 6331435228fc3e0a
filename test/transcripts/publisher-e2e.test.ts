// The publisher's transcript end to end (docs/transcripts.md "The publisher's transcript"): a
// loopback podcast feed whose episodes offer VTT with voices, SRT and the Podcasting 2.0 JSON, one
// a 404 and one malformed, one nothing; `library add`, `backlot run --until-idle` with the
// production engines on a real SQLite library. The offered transcripts become the items' records
// (speakers, words, estimated words marked), the 404 and the malformed file are remembered with
// their codes and pocketsphinx takes those items and the one without an offer, a channel set to
// local-only ignores its offer, one set to both keeps pocketsphinx's beside the source's, and an
// imported transcript is found by `backlot search` and exported with the publisher's speaker names.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, createLibrary, makeSpeech, removeTempDirs, serveBytes, serveText, startServer, tempDir, type TestServer } from '../acquisition/fixtures';
import { transcriptRecord, type TranscriptRecord } from '../../src-shared/transcript/record';

afterAll(() => removeTempDirs());

interface Episode { guid: string; words: string; offer?: { path: string; type: string } }

function podcastFeed(title: string, server: TestServer, episodes: readonly Episode[], sizes: readonly number[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel><title>${title}</title><link>http://127.0.0.1/</link><description>d</description>
${episodes.map((e, i) => `<item><title>${e.guid}</title><guid isPermaLink="false">${e.guid}</guid><pubDate>Mon, 0${i + 1} Jan 2024 10:00:00 GMT</pubDate>
<enclosure url="${server.url}/media/${title.replace(/\W/g, '')}-${e.guid}.mp3" type="audio/mpeg" length="${sizes[i]}"/>
${e.offer ? `<podcast:transcript url="${server.url}${e.offer.path}" type="${e.offer.type}" language="en"/>` : ''}</item>`).join('\n')}
</channel></rss>`;
}

const VTT = `WEBVTT

00:00:00.100 --> 00:00:01.500
<v Alice Smith>Welcome to the show.

00:00:01.500 --> 00:00:03.000
<v Bob Jones>Thanks <00:00:02.000>for having me.
`;
const SRT = '1\n00:00:00,200 --> 00:00:02,000\nThe weather is <i>lovely</i> today.\n';
const JSON_TRANSCRIPT = JSON.stringify({
  version: '1.0.0',
  segments: [['Carol', 0.1, 0.5, 'Budget'], ['Carol', 0.5, 0.9, 'talks'], ['Carol', 0.9, 1.4, 'resumed.'], ['Dan', 1.6, 2.0, 'Agreed.']]
    .map(([speaker, startTime, endTime, body]) => ({ speaker, startTime, endTime, body })),
});

describe("the publisher's own transcript", () => {
  it('imports VTT, SRT and JSON transcripts, falls back to pocketsphinx on a 404, a malformed file and no offer, respects local-only, and is searchable and exported', async () => {
    const server = await startServer();
    try {
      const shows: { title: string; episodes: Episode[] }[] = [
        {
          title: 'Offer Show',
          episodes: [
            { guid: 'vtt', words: 'welcome to the show thanks for having me', offer: { path: '/t/vtt.vtt', type: 'text/vtt' } },
            { guid: 'srt', words: 'the weather is lovely today', offer: { path: '/t/srt.srt', type: 'application/x-subrip' } },
            { guid: 'json', words: 'budget talks resumed agreed', offer: { path: '/t/json.json', type: 'application/json' } },
            { guid: 'gone', words: 'this transcript went missing', offer: { path: '/t/missing.vtt', type: 'text/vtt' } },
            { guid: 'bad', words: 'this transcript is broken', offer: { path: '/t/bad.vtt', type: 'text/vtt' } },
            { guid: 'none', words: 'no transcript was offered here' },
          ],
        },
        { title: 'Local Show', episodes: [{ guid: 'local', words: 'local engines only please', offer: { path: '/t/vtt.vtt', type: 'text/vtt' } }] },
        {
          title: 'Both Show',
          episodes: [
            { guid: 'both', words: 'welcome to the show thanks for having me', offer: { path: '/t/vtt.vtt', type: 'text/vtt' } },
            { guid: 'bothgone', words: 'nothing is at that address', offer: { path: '/t/missing.vtt', type: 'text/vtt' } },
          ],
        },
      ];
      const media = tempDir('pub-media');
      for (const show of shows) {
        const key = show.title.replace(/\W/g, '');
        const sizes = show.episodes.map((e) => {
          const body = makeSpeech(path.join(media, `${key}-${e.guid}.mp3`), e.words);
          server.route(`/media/${key}-${e.guid}.mp3`, serveBytes(body));
          return body.length;
        });
        server.route(`/feeds/${key}`, serveText(podcastFeed(show.title, server, show.episodes, sizes)));
      }
      server.route('/t/vtt.vtt', serveText(VTT, 'text/vtt'));
      server.route('/t/srt.srt', serveText(SRT, 'application/x-subrip'));
      server.route('/t/json.json', serveText(JSON_TRANSCRIPT, 'application/json'));
      server.route('/t/bad.vtt', serveText('<html>this is not a subtitle file</html>', 'text/vtt'));

      const data = createLibrary(tempDir('pub-data'));
      for (const [k, v] of [['politeness.minIntervalS', '0'], ['diskGate.shutBelowBytes', '0'], ['diskGate.drainingBelowBytes', '0']]) {
        expect((await cli(['settings', 'set', k, v, '--data', data])).code).toBe(0);
      }
      const channels: Record<string, string> = {};
      for (const show of shows) {
        const added = await cli(['library', 'add', `${server.url}/feeds/${show.title.replace(/\W/g, '')}`, '--data', data, '--json']);
        expect(added.stderr).toBe('');
        channels[show.title] = (JSON.parse(added.stdout) as { channel: { id: string } }).channel.id;
      }
      const set = await cli(['library', 'set', channels['Local Show'], 'transcripts.source', 'local-only', '--data', data]);
      expect(set.stdout).toContain('transcripts.source = local-only');
      expect((await cli(['library', 'set', channels['Both Show'], 'transcripts.source', 'both', '--data', data])).code).toBe(0);
      const refused = await cli(['library', 'set', channels['Local Show'], 'transcripts.source', 'sometimes', '--data', data]);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('SETTING_INVALID');

      const ran = await cli(['run', '--until-idle', '--timeout', '540', '--data', data, '--json']);
      expect(ran.code, ran.stderr).toBe(0);
      const units = ran.stdout.trim().split('\n').map((l) => JSON.parse(l) as { unit?: { operation: string; title: string; outcome: string; code?: string } })
        .flatMap((l) => (l.unit && l.unit.operation === 'transcribe' ? [l.unit] : []));
      // The 404 and the malformed file were tried once each, then handed on with their codes.
      expect(units.filter((u) => u.outcome !== 'done').map((u) => [u.title, u.code]).sort()).toEqual([
        ['bad', 'PUBLISHER_TRANSCRIPT_MALFORMED'], ['gone', 'PUBLISHER_TRANSCRIPT_NOT_FOUND'],
      ]);

      const db = new Database(path.join(data, 'backlot.sqlite'), { readonly: true });
      let records: Record<string, TranscriptRecord>;
      let fallbacks: Record<string, string | null>;
      let outputs: Record<string, string>;
      try {
        const rows = db.prepare(`SELECT i.title, i.transcript_fallback, w.state, w.output_path FROM work w JOIN items i ON i.id = w.item_id
          WHERE w.operation = 'transcribe'`).all() as { title: string; transcript_fallback: string | null; state: string; output_path: string }[];
        expect(rows.map((r) => [r.title, r.state]).sort()).toEqual(['bad', 'both', 'bothgone', 'gone', 'json', 'local', 'none', 'srt', 'vtt'].map((t) => [t, 'done']));
        outputs = Object.fromEntries(rows.map((r) => [r.title, r.output_path]));
        records = Object.fromEntries(rows.map((r) => [r.title, transcriptRecord.parse(JSON.parse(fs.readFileSync(r.output_path, 'utf8')))]));
        fallbacks = Object.fromEntries(rows.map((r) => [r.title, r.transcript_fallback]));
      } finally {
        db.close();
      }
      const engines = Object.fromEntries(Object.entries(records).map(([t, r]) => [t, r.engine]));
      expect(engines).toEqual({
        vtt: 'publisher-transcript', srt: 'publisher-transcript', json: 'publisher-transcript', gone: 'pocketsphinx', bad: 'pocketsphinx', none: 'pocketsphinx', local: 'pocketsphinx',
        both: 'publisher-transcript', bothgone: 'pocketsphinx',
      });
      // both: the source's is the item's transcript, pocketsphinx's kept beside it; a 404 leaves the local one as the item's.
      const kept = path.join(path.dirname(outputs.both), 'transcript.local.json');
      expect(transcriptRecord.parse(JSON.parse(fs.readFileSync(kept, 'utf8'))).engine).toBe('pocketsphinx');
      expect(records.both.segments).toEqual(records.vtt.segments);
      expect(fs.existsSync(path.join(path.dirname(outputs.bothgone), 'transcript.local.json'))).toBe(false);
      expect(JSON.parse(fallbacks.bothgone!)).toMatchObject({ code: 'PUBLISHER_TRANSCRIPT_NOT_FOUND' });
      expect(JSON.parse(fallbacks.gone!)).toEqual({ code: 'PUBLISHER_TRANSCRIPT_NOT_FOUND', url: `${server.url}/t/missing.vtt` });
      expect(JSON.parse(fallbacks.bad!)).toMatchObject({ code: 'PUBLISHER_TRANSCRIPT_MALFORMED' });
      expect(fallbacks.local).toBeNull();
      // The local-only channel never fetched its offer.
      expect(server.hits.filter((h) => h.path.startsWith('/t/')).map((h) => h.path).sort()).toEqual(['/t/bad.vtt', '/t/json.json', '/t/missing.vtt', '/t/missing.vtt', '/t/srt.srt', '/t/vtt.vtt', '/t/vtt.vtt']);

      const vtt = records.vtt;
      expect(vtt.origin).toEqual({ kind: 'publisher', url: `${server.url}/t/vtt.vtt`, format: 'text/vtt', estimatedWords: 7 });
      expect(vtt.segments.map((s) => [s.speaker, s.text])).toEqual([['publisher:Alice Smith', 'Welcome to the show.'], ['publisher:Bob Jones', 'Thanks for having me.']]);
      expect(vtt.segments[1].words[0]).toEqual({ w: 'Thanks', start: 1.5, end: 2, p: 1 });
      expect(vtt.segments[0].words.every((w) => w.est === true)).toBe(true);
      expect(records.srt.segments.map((s) => [s.start, s.end, s.speaker, s.text])).toEqual([[0.2, 2, null, 'The weather is lovely today.']]);
      expect(records.json.segments.map((s) => [s.speaker, s.text])).toEqual([['publisher:Carol', 'Budget talks resumed.'], ['publisher:Dan', 'Agreed.']]);
      expect(records.json.origin!.estimatedWords).toBe(0);

      // Searchable, with the publisher's name on the hit; exported in SRT, VTT and JSON with it.
      const search = await cli(['search', 'having', '--data', data, '--json']);
      expect(search.code, search.stderr).toBe(0);
      const hits = (JSON.parse(search.stdout) as { hits: { title: string; speaker: string | null; text: string }[] }).hits;
      expect(hits.map((h) => [h.title, h.speaker, h.text]).sort()).toEqual([['both', 'Bob Jones', 'Thanks for having me.'], ['vtt', 'Bob Jones', 'Thanks for having me.']]);
      const bySpeaker = await cli(['search', 'resumed', '--speaker', 'Carol', '--data', data, '--json']);
      expect((JSON.parse(bySpeaker.stdout) as { hits: { title: string }[] }).hits.map((h) => h.title)).toEqual(['json']);
      const vttItem = (await cli(['search', 'welcome', '--data', data, '--json'])).stdout;
      const itemId = (JSON.parse(vttItem) as { hits: { item: string; title: string }[] }).hits.find((h) => h.title === 'vtt')!.item;
      const srt = await cli(['transcript', itemId, '--format', 'srt', '--data', data]);
      expect(srt.code, srt.stderr).toBe(0);
      expect(srt.stdout).toContain('Alice Smith: Welcome to the show.');
      const asVtt = await cli(['transcript', itemId, '--format', 'vtt', '--data', data]);
      expect(asVtt.stdout).toContain('<v Bob Jones>Thanks for having me.');
      const asJson = JSON.parse((await cli(['transcript', itemId, '--format', 'json', '--data', data])).stdout) as { origin: unknown; speakers: Record<string, string> };
      expect(asJson.origin).toMatchObject({ kind: 'publisher', format: 'text/vtt' });
      expect(asJson.speakers).toEqual({ 'publisher:Alice Smith': 'Alice Smith', 'publisher:Bob Jones': 'Bob Jones' });
    } finally {
      await server.close();
    }
  }, 600_000);
});
