// The feed reader on its own: RSS 2.0, Atom and RSS 1.0 with the podcast namespaces, any declared
// charset, itunes:duration in every form, stable ids, and its own refusal for not-XML and not-a-feed.
import { describe, expect, it } from 'vitest';
import { parseFeed } from '../../src-main/library/feed/parse-feed';
import { parseItunesDuration } from '../../src-main/library/feed/duration';

function refusal(fn: () => unknown): { code: string; params: Record<string, unknown> } {
  try { fn(); } catch (e) { return e as { code: string; params: Record<string, unknown> }; }
  throw new Error('expected a refusal');
}

describe('itunes:duration', () => {
  it.each([
    ['3600', 3600], ['61', 61], ['12.5', 12.5], ['05:07', 307], ['61:05', 3665], ['1:01:05', 3665], ['01:00:00', 3600], ['0:00:03.5', 3.5], [' 42 ', 42],
  ])('reads %j as %d seconds', (text, seconds) => {
    expect(parseItunesDuration(text)).toBe(seconds);
  });
  it.each([[''], ['abc'], ['1:75'], ['1:60:00'], ['-3'], ['1::2'], [null]])('leaves %j unknown', (text) => {
    expect(parseItunesDuration(text)).toBeNull();
  });
});

describe('parseFeed', () => {
  it('reads RSS 2.0 with the podcast namespace: ids, dates, durations, enclosures, images', () => {
    const feed = parseFeed(Buffer.from(`<?xml version="1.0"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:content="http://purl.org/rss/1.0/modules/content/">
<channel><title>Show &amp; Tell</title>
<item><title>One</title><guid>g1</guid><pubDate>Tue, 02 Jan 2024 10:00:00 GMT</pubDate><itunes:duration>1:02:03</itunes:duration>
  <enclosure url="http://h/1.mp3" type="audio/mpeg" length="12345"/><itunes:image href="http://h/1.jpg"/><content:encoded><![CDATA[<p>Notes</p>]]></content:encoded></item>
<item><title>No guid</title><enclosure url="http://h/2.mp3" type="audio/mpeg" length="x"/><description>plain</description></item>
<item><title>Link only</title><link>http://h/post</link></item>
</channel></rss>`));
    expect(feed.format).toBe('rss');
    expect(feed.title).toBe('Show & Tell');
    expect(feed.entries[0]).toEqual({
      externalId: 'g1', title: 'One', publishedAt: Date.UTC(2024, 0, 2, 10) / 1000, durationS: 3723, url: 'http://h/1.mp3',
      description: '<p>Notes</p>', imageUrl: 'http://h/1.jpg', enclosureType: 'audio/mpeg', enclosureLength: 12345, live: null,
    });
    expect(feed.entries[1]).toMatchObject({ externalId: 'http://h/2.mp3', enclosureLength: null, description: 'plain', publishedAt: null });
    // A link is a page, not media: the entry has no download to do (docs/feeds.md "Items without media").
    expect(feed.entries[2]).toMatchObject({ externalId: 'http://h/post', url: null, enclosureType: null });
  });

  it('reads Atom and RSS 1.0', () => {
    const atom = parseFeed(Buffer.from(`<feed xmlns="http://www.w3.org/2005/Atom"><title>Atom Show</title>
<entry><id>urn:a:1</id><title type="text">E1</title><updated>2024-03-01T00:00:00Z</updated>
<link rel="alternate" href="http://h/e1"/><link rel="enclosure" href="http://h/e1.ogg" type="audio/ogg" length="99"/><summary>s</summary></entry></feed>`));
    expect(atom).toMatchObject({ format: 'atom', title: 'Atom Show' });
    expect(atom.entries[0]).toMatchObject({ externalId: 'urn:a:1', title: 'E1', url: 'http://h/e1.ogg', enclosureType: 'audio/ogg', enclosureLength: 99, publishedAt: Date.UTC(2024, 2, 1) / 1000 });
    const rdf = parseFeed(Buffer.from(`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel><title>RDF</title></channel><item><title>R1</title><link>http://h/r1</link><dc:date>2024-01-05T00:00:00Z</dc:date></item></rdf:RDF>`));
    expect(rdf).toMatchObject({ format: 'rdf', title: 'RDF', entries: [{ externalId: 'http://h/r1', publishedAt: Date.UTC(2024, 0, 5) / 1000 }] });
  });

  it('decodes the declared charset, a byte-order mark and the HTTP charset', () => {
    const latin = Buffer.concat([Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><rss><channel><title>Caf'), Buffer.from([0xe9]), Buffer.from('</title></channel></rss>')]);
    expect(parseFeed(latin).title).toBe('Café');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<rss><channel><title>Ünï</title></channel></rss>', 'utf16le')]);
    expect(parseFeed(utf16).title).toBe('Ünï');
    const win = Buffer.concat([Buffer.from('<rss><channel><title>'), Buffer.from([0x93, 0x71, 0x94]), Buffer.from('</title></channel></rss>')]);
    expect(parseFeed(win, 'application/rss+xml; charset=windows-1252').title).toBe('“q”');
  });

  it('refuses a document that is not XML with its line, and XML that is not a feed with its root', () => {
    expect(refusal(() => parseFeed(Buffer.from('<rss><channel>\n<title>x</titl></channel></rss>')))).toMatchObject({ code: 'FEED_NOT_XML', params: { line: 2 } });
    expect(refusal(() => parseFeed(Buffer.from('{"json": true}')))).toMatchObject({ code: 'FEED_NOT_XML' });
    expect(refusal(() => parseFeed(Buffer.from('<html><body><p>hi</p></body></html>')))).toMatchObject({ code: 'FEED_NOT_A_FEED', params: { root: 'html' } });
  });
});
