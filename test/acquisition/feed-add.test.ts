// `library add` and sync with feeds as they come (issue 21 items 1 and 6, issue 23 item 10): a feed
// read leniently keeps its note with the channel and shows it; XML that cannot be read gets the feed
// reader's verdict, never yt-dlp's; a text-only feed says so; its items never wait for a download.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSource } from '../../src-main/library/add-source';
import { applyListing, feedNotes } from '../../src-main/library/apply-listing';
import { channelSummaries } from '../../src-main/cli/commands/library';
import { createHandlers } from '../../src-main/api/handlers';
import { dispatch } from '../../src-main/api/dispatch';
import { listedItemId } from '../../src-main/library/ids';
import type { Listing } from '../../src-main/library/listing';
import { openHost, tempDir } from '../library/helpers';
import { cli, createLibrary, removeTempDirs, serveText, startServer, type TestServer } from './fixtures';

let server: TestServer;
beforeAll(async () => { server = await startServer(); });
afterAll(async () => { await server.close(); removeTempDirs(); });

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try { await p; } catch (e) { return e as { code: string; message: string }; }
  throw new Error('expected a refusal');
}

/** A lister standing in for yt-dlp that records being asked: a feed-shaped URL must never reach it. */
function recordingLister() {
  const asked: string[] = [];
  return { asked, lister: async (url: string) => { asked.push(url); return { title: 'platform', entries: 7 }; } };
}

describe('library add with feeds as they come', () => {
  it('adds an ill-formed feed read leniently and keeps its note with the channel, shown in listings', async () => {
    server.route('/bozo.xml', serveText('  <?xml version="1.0"?>\n<rss><channel><title>Bozo</title>\n<item><guid>1</guid><enclosure url="a.mp3" type="audio/mpeg"/><description><p><em>x</p></em></description></item>\n<item><guid>2</guid></item>'));
    const host = openHost(tempDir('data'));
    try {
      const { lister, asked } = recordingLister();
      const { channel, probe } = await addSource(host, `${server.url}/bozo.xml`, { lister });
      expect(asked).toEqual([]);
      expect(probe).toMatchObject({ kind: 'feed', title: 'Bozo', entries: 2, media: 1 });
      expect(probe!.note).toMatch(/not well-formed XML \(line 3, column \d+/);
      const summary = channelSummaries(host).find((c) => c.id === channel.id)!;
      expect(summary.feedNote).toBe(probe!.note);
      // The API's channel list carries it too, for the window and scripts.
      const listed = await dispatch(createHandlers(host), 'library.list', {});
      expect(listed).toMatchObject({ ok: true, result: { channels: [{ id: channel.id, feedNote: probe!.note }] } });
    } finally {
      host.close();
    }
  });

  it('refuses XML with nothing item-like as FEED_NOT_XML with its line, and entities as FEED_ENTITY_REFUSED, never asking yt-dlp', async () => {
    server.route('/garbled.xml', serveText('<?xml version="1.0"?>\n<rss>\n<channel><title>x</titl>'));
    server.route('/xxe.xml', serveText('<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY e SYSTEM "file:///etc/hostname">]><rss><channel><item><title>&e;</title></item></channel></rss>'));
    const host = openHost(tempDir('data'));
    try {
      const { lister, asked } = recordingLister();
      const garbled = await refusal(addSource(host, `${server.url}/garbled.xml`, { lister }));
      expect(garbled.code).toBe('FEED_NOT_XML');
      expect(garbled.message).toMatch(/line 3, column \d+/);
      expect((await refusal(addSource(host, `${server.url}/xxe.xml`, { lister }))).code).toBe('FEED_ENTITY_REFUSED');
      expect(asked).toEqual([]);
      expect(host.library.channels()).toEqual([]);
    } finally {
      host.close();
    }
  });

  it('says a feed of only text items has no media, and never defers its items for a download', async () => {
    server.route('/news.xml', serveText('<rss><channel><title>News</title><item><guid>n1</guid><title>Story</title><link>http://h/story</link></item><item><guid>n2</guid><enclosure url="http://h/pic.jpg" type="image/jpeg"/></item></channel></rss>'));
    const host = openHost(tempDir('data'));
    try {
      const { channel, probe } = await addSource(host, `${server.url}/news.xml`);
      expect(probe).toMatchObject({ entries: 2, media: 0, note: null });
      const listing: Listing = {
        kind: 'feed', title: 'News', notModified: false, complete: true, validators: { etag: null, lastModified: null, finalUrl: null }, note: 'The feed is odd.',
        entries: ['n1', 'n2'].map((id) => ({ externalId: id, title: id, publishedAt: 1, durationS: null, url: null, description: null, imageUrl: null, enclosureType: null, enclosureLength: null, live: null })),
      };
      host.transaction(() => applyListing(host, channel, listing, 10));
      expect(feedNotes(host).get(channel.id)).toBe('The feed is odd.');
      for (const id of ['n1', 'n2']) {
        const item = listedItemId(channel.id, id);
        expect(host.work.row('download', item)?.state).toBe('missing-input');
        expect(host.work.row('transcribe', item)?.state).toBe('missing-input');
      }
      // A 304 keeps the note; a clean read clears it.
      host.transaction(() => applyListing(host, channel, { ...listing, notModified: true, note: null, entries: [] }, 20));
      expect(feedNotes(host).get(channel.id)).toBe('The feed is odd.');
      host.transaction(() => applyListing(host, channel, { ...listing, note: null }, 30));
      expect(feedNotes(host).has(channel.id)).toBe(false);
    } finally {
      host.close();
    }
  });

  it('a re-sync rewrites the listing facts of a known item, and re-derives its work only when what the work reads (time, duration, url) changed', async () => {
    server.route('/resync.xml', serveText('<rss><channel><title>Resync</title><item><guid>r1</guid><title>One</title></item></channel></rss>'));
    const host = openHost(tempDir('data'));
    try {
      const { channel } = await addSource(host, `${server.url}/resync.xml`);
      const entry = { externalId: 'r1', title: 'One', publishedAt: 1, durationS: null, url: null, description: null, imageUrl: null, enclosureType: null, enclosureLength: null, live: null };
      const listing: Listing = { kind: 'feed', title: 'Resync', notModified: false, complete: true, validators: { etag: null, lastModified: null, finalUrl: null }, note: null, entries: [entry] };
      const item = listedItemId(channel.id, 'r1');
      host.transaction(() => applyListing(host, channel, listing, 10));
      expect(host.work.row('download', item)?.state).toBe('missing-input');
      // Only the title and the listing time change: the item row follows, the work rows stay.
      const before = host.db.prepare('SELECT * FROM work WHERE item_id = ? ORDER BY operation').all(item);
      expect(host.transaction(() => applyListing(host, channel, { ...listing, entries: [{ ...entry, title: 'One, renamed' }] }, 20))).toMatchObject({ added: 0, updated: 1 });
      expect(host.library.item(item)).toMatchObject({ title: 'One, renamed', listed_at: 20 });
      expect(host.db.prepare('SELECT * FROM work WHERE item_id = ? ORDER BY operation').all(item)).toEqual(before);
      // The enclosure appears: the download can now run.
      host.transaction(() => applyListing(host, channel, { ...listing, entries: [{ ...entry, url: 'http://h/r1.mp3', enclosureType: 'audio/mpeg' }] }, 30));
      expect(host.work.row('download', item)?.state).toBe('missing');
      // A new publication time moves the item's rows in the orders.
      host.transaction(() => applyListing(host, channel, { ...listing, entries: [{ ...entry, url: 'http://h/r1.mp3', publishedAt: 99 }] }, 40));
      expect(host.work.row('download', item)?.published_at).toBe(99);
    } finally {
      host.close();
    }
  });

  it('from a terminal: the note and the text-only sentence are shown, and XXE is its own refusal, not INTERNAL (exit 70)', async () => {
    server.route('/cli-bozo.xml', serveText('\n<?xml version="1.0"?><rss><channel><title>Bozo CLI</title><item><guid>1</guid><enclosure url="a.mp3" type="audio/mpeg"/></item></channel>'));
    server.route('/cli-text.xml', serveText('<rss><channel><title>Words</title><item><guid>w1</guid><link>http://h/w1</link></item></channel></rss>'));
    server.route('/cli-xxe.xml', serveText('<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><rss><channel><title>&b;</title></channel></rss>'));
    const data = createLibrary(tempDir('feed-cli'));
    const bozo = await cli(['library', 'add', `${server.url}/cli-bozo.xml`, '--data', data]);
    expect(bozo.stderr).toBe('');
    expect(bozo.stdout).toMatch(/^Note: The feed is not well-formed XML \(line \d+, column \d+: .+\); it was read leniently and 1 entry was recovered\.$/m);
    const text = await cli(['library', 'add', `${server.url}/cli-text.xml`, '--data', data]);
    expect(text.stdout).toMatch(/None of its entries has audio or video: it is a text-only feed/);
    const list = await cli(['library', 'list', '--data', data]);
    expect(list.stdout).toMatch(/^Bozo CLI .*\n {2}note: The feed is not well-formed XML/m);
    const xxe = await cli(['library', 'add', `${server.url}/cli-xxe.xml`, '--data', data]);
    expect(xxe.code).not.toBe(70);
    expect(xxe.stderr).toMatch(/^backlot: FEED_ENTITY_REFUSED: /);
  });
});
