// Feeds as the world publishes them (issue 21 items 1-6, issue 23 items 6 and 10), served from a
// loopback server and read through the same client and reader the feed engine uses: each fixture
// carries one trait, and the test says what a lenient reader (feedparser, podcast apps) finds in it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import iconv from 'iconv-lite';
import { httpGet } from '../../src-main/library/net/http-get';
import { parseFeed, type ParsedFeed } from '../../src-main/library/feed/parse-feed';
import { listingSchema } from '../../src-main/library/listing';
import { startServer, type TestServer } from './fixtures';

let server: TestServer;
beforeAll(async () => { server = await startServer(); });
afterAll(async () => { await server.close(); });

/** Serves `body` at `path` with `type` (no charset unless given) and reads it as the feed engine does. */
async function served(path: string, body: string | Buffer, type = 'application/rss+xml'): Promise<ParsedFeed> {
  server.route(path, (_req, res) => { res.writeHead(200, { 'content-type': type }).end(body); });
  const res = await httpGet(`${server.url}${path}`);
  return parseFeed(res.body, res.headers['content-type'] as string | undefined, res.finalUrl);
}

function refusal(fn: () => unknown): { code: string; message: string; params: Record<string, unknown> } {
  try { fn(); } catch (e) { return e as { code: string; message: string; params: Record<string, unknown> }; }
  throw new Error('expected a refusal');
}

const item = (n: number, extra = '') => `<item><title>Episode ${n}</title><guid>g${n}</guid><enclosure url="http://h/${n}.mp3" type="audio/mpeg" length="${n}00"/>${extra}</item>`;
const feed = (items: string, head = '<?xml version="1.0" encoding="UTF-8"?>') => `${head}\n<rss version="2.0"><channel><title>Show</title>\n${items}\n</channel></rss>`;

describe('ill-formed feeds are read leniently (issue 21 item 1)', () => {
  it('reads a feed with whitespace before <?xml as a clean feed', async () => {
    const f = await served('/ws.xml', `\n\n   ${feed([1, 2, 3].map((n) => item(n)).join('\n'))}`);
    expect(f.entries.map((e) => e.externalId)).toEqual(['g1', 'g2', 'g3']);
    expect(f.note).toBeNull();
  });

  it('recovers every entry around mis-nested markup, with a note naming the error and its line', async () => {
    const f = await served('/nesting.xml', feed([item(1), item(2, '<description><p><em>bold</p></em></description>'), item(3)].join('\n')));
    expect(f.entries.map((e) => e.title)).toEqual(['Episode 1', 'Episode 2', 'Episode 3']);
    expect(f.entries[1].description).toContain('bold');
    expect(f.note).toMatch(/not well-formed XML \(line 4, column \d+: .+\); it was read leniently and 3 entries were recovered/);
  });

  it('recovers the entries of a truncated feed and of one missing <channel>', async () => {
    const truncated = feed([1, 2, 3].map((n) => item(n)).join('\n')).slice(0, -40);
    const t = await served('/truncated.xml', truncated);
    expect(t.entries.map((e) => e.externalId)).toEqual(['g1', 'g2', 'g3']);
    expect(t.note).toMatch(/not well-formed/);
    const noChannel = await served('/nochannel.xml', `<?xml version="1.0"?><rss version="2.0">${item(1)}${item(2)}</rss>`);
    expect(noChannel.entries.map((e) => e.externalId)).toEqual(['g1', 'g2']);
  });

  it('refuses a document with nothing item-like, naming the XML error and its line', async () => {
    // A well-formed feed with no entries is an empty feed, not a refusal.
    expect(await served('/empty.xml', feed(''))).toMatchObject({ entries: [], note: null });
    const body = '<?xml version="1.0"?>\n<rss><channel>\n<title>x</titl></channel>';
    server.route('/broken.xml', (_q, r) => { r.writeHead(200, { 'content-type': 'text/xml' }).end(body); });
    const res = await httpGet(`${server.url}/broken.xml`);
    const r = refusal(() => parseFeed(res.body, 'text/xml'));
    expect(r.code).toBe('FEED_NOT_XML');
    expect(r.params).toMatchObject({ line: 3 });
    expect(r.message).toMatch(/line 3, column \d+: .*close tag/i);
  });

  it('refuses entities declared in a DOCTYPE (XXE, entity expansion) with its own code', async () => {
    const xxe = '<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><rss><channel><item><title>&xxe;</title></item></channel></rss>';
    const bomb = `<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "${'x'.repeat(1000)}"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><rss><channel><item><title>&b;</title></item></channel></rss>`;
    for (const [path, body] of [['/xxe.xml', xxe], ['/bomb.xml', bomb]]) {
      server.route(path, (_q, r) => { r.writeHead(200, { 'content-type': 'application/rss+xml' }).end(body); });
      const res = await httpGet(`${server.url}${path}`);
      expect(refusal(() => parseFeed(res.body))).toMatchObject({ code: 'FEED_ENTITY_REFUSED' });
    }
  });
});

describe('encodings (issue 21 item 2)', () => {
  const french = ['Café', 'Crème brûlée', 'Déjà vu', 'Noël', 'Garçon', 'Écume', 'Fête', 'Élève', 'Hôtel', 'Forêt', 'Naïve', 'Où', 'Âge', 'Île', 'Ça va'];
  const russian = ['Привет', 'Новости дня', 'Музыка', 'Беседа о книгах', 'Погода', 'Спорт сегодня', 'Наука и жизнь', 'История', 'Кино', 'Театр'];
  const titled = (titles: string[]) => feed(titles.map((t, i) => `<item><title>${t}</title><guid>${i}</guid></item>`).join('\n'), '<?xml version="1.0"?>');

  it('detects undeclared ISO-8859-1 and KOI8-R from the bytes', async () => {
    const latin = await served('/latin1.xml', iconv.encode(titled(french), 'latin1'), 'application/rss+xml');
    expect(latin.entries.map((e) => e.title)).toEqual(french);
    const koi = await served('/koi8.xml', iconv.encode(titled(russian), 'koi8-r'), 'text/xml');
    expect(koi.entries.map((e) => e.title)).toEqual(russian);
  });

  it('reads UTF-32 with a byte-order mark, both byte orders', async () => {
    for (const enc of ['utf32le', 'utf32be']) {
      const f = await served(`/${enc}.xml`, iconv.encode(titled(russian), enc, { addBOM: true }));
      expect(f.entries.map((e) => e.title)).toEqual(russian);
    }
  });

  it('takes the HTTP charset over the declaration, and reads a feed that claims UTF-8 but is not', async () => {
    const body = iconv.encode(feed('<item><title>Façade</title><guid>1</guid></item>', '<?xml version="1.0" encoding="utf-8"?>'), 'latin1');
    expect((await served('/header.xml', body, 'application/rss+xml; charset=ISO-8859-1')).entries[0].title).toBe('Façade');
    const lying = await served('/lying.xml', body);
    expect(lying.entries[0].title).toBe('Façade');
    expect(lying.note).toMatch(/says it is utf-8 but its bytes are not/);
  });
});

describe('namespaces by URI, URLs by base, ids for every entry (issue 21 items 3-5)', () => {
  it('matches elements by namespace URI, never by prefix: it:duration, a10:link', async () => {
    const f = await served('/ns.xml', `<rss version="2.0" xmlns:it="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:a10="http://www.w3.org/2005/Atom" xmlns:itunes="http://example.com/not-itunes">
<channel><title>NS</title>
<item><guid>1</guid><title>One</title><it:duration>1:02:03</it:duration><a10:link href="http://h/page1"/><enclosure url="http://h/1.mp3" type="audio/mpeg"/></item>
<item><guid>2</guid><title>Two</title><itunes:duration>99</itunes:duration><a10:link rel="enclosure" href="http://h/2.m4a" type="audio/mp4" length="42"/></item>
</channel></rss>`);
    expect(f.entries[0]).toMatchObject({ durationS: 3723, url: 'http://h/1.mp3' });
    // "itunes:" bound to another URI is not iTunes; a10 is Atom whatever its prefix.
    expect(f.entries[1]).toMatchObject({ durationS: null, url: 'http://h/2.m4a', enclosureType: 'audio/mp4', enclosureLength: 42 });
  });

  it('resolves relative URLs against xml:base, then the feed URL after redirects', async () => {
    server.route('/old-feed', (_q, r) => { r.writeHead(301, { location: '/shows/feed.xml' }).end(); });
    server.route('/shows/feed.xml', (_q, r) => {
      r.writeHead(200, { 'content-type': 'application/rss+xml' }).end(`<rss version="2.0"><channel><title>Rel</title>
<item><guid>1</guid><enclosure url="episode.mp3" type="audio/mpeg"/></item>
<item xml:base="http://cdn.example/media/"><guid>2</guid><enclosure url="two.mp3" type="audio/mpeg"/></item>
<item><guid>3</guid><enclosure url="/root/three.mp3" type="audio/mpeg"/><itunes:image href="art.jpg"/></item>
</channel></rss>`);
    });
    const res = await httpGet(`${server.url}/old-feed`);
    const f = parseFeed(res.body, undefined, res.finalUrl);
    expect(f.entries.map((e) => e.url)).toEqual([`${server.url}/shows/episode.mp3`, 'http://cdn.example/media/two.mp3', `${server.url}/root/three.mp3`]);
    expect(f.entries[2].imageUrl).toBe(`${server.url}/shows/art.jpg`);
  });

  it('gives every entry its own stable id, even with no guid, link, enclosure or title', async () => {
    const body = feed(['<item><description>first</description></item>', '<item><description>second</description></item>',
      '<item><title>Same</title><description>a</description></item>', '<item><title>Same</title><description>b</description></item>', '<item/>'].join('\n'));
    const a = await served('/idless.xml', body);
    const b = await served('/idless-again.xml', body);
    expect(a.entries).toHaveLength(5);
    expect(new Set(a.entries.map((e) => e.externalId)).size).toBe(5);
    expect(b.entries.map((e) => e.externalId)).toEqual(a.entries.map((e) => e.externalId));
  });
});

describe('media and oversize entries (issue 21 item 6, issue 23 item 6)', () => {
  it('never takes an image for the episode when audio or video is there, and leaves text entries without media', async () => {
    const f = await served('/media.xml', feed([
      '<item><guid>1</guid><enclosure url="http://h/cover.jpg" type="image/jpeg"/><enclosure url="http://h/1.mp3" type="audio/mpeg" length="5"/></item>',
      '<item><guid>2</guid><enclosure url="http://h/thumb.png" type="image/png"/><link>http://h/post2</link></item>',
      '<item xmlns:media="http://search.yahoo.com/mrss/"><guid>3</guid><media:content url="http://h/still.jpg" medium="image"/><media:content url="http://h/3.mp4" type="video/mp4"/></item>',
      '<item><guid>4</guid><title>Just words</title><link>http://h/post4</link></item>',
    ].join('\n')));
    expect(f.entries.map((e) => e.url)).toEqual(['http://h/1.mp3', null, 'http://h/3.mp4', null]);
    expect(f.entries[0].imageUrl).toBe('http://h/cover.jpg');
    expect(f.entries[1]).toMatchObject({ imageUrl: 'http://h/thumb.png', enclosureType: null });
  });

  it('shortens an oversize entry and keeps the rest, within the listing schema', async () => {
    const f = await served('/oversize.xml', feed([item(1), `<item><guid>${'g'.repeat(3000)}</guid><title>${'t'.repeat(10_000)}</title></item>`, item(3)].join('\n')));
    expect(f.entries.map((e) => e.title.length)).toEqual([9, 2000, 9]);
    expect(f.entries[1].externalId.length).toBeLessThanOrEqual(2048);
    expect(f.note).toMatch(/1 entry had a field longer than Backlot keeps/);
    const listing = { kind: 'feed', title: f.title, notModified: false, complete: true, validators: { etag: null, lastModified: null, finalUrl: null }, entries: f.entries, note: f.note };
    expect(listingSchema.safeParse(listing).success).toBe(true);
  });
});
