import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { recogniseSource } from '../../src-main/library/source';
import { channelId, slug } from '../../src-main/library/ids';
import { tempDir } from './helpers';

function refusal(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (e) {
    return { code: (e as { code: string }).code, message: (e as Error).message };
  }
  throw new Error('expected a refusal');
}

describe('recogniseSource', () => {
  it('recognises an existing folder by its real path', () => {
    const dir = tempDir('src');
    const link = `${dir}-link`;
    fs.symlinkSync(dir, link);
    const a = recogniseSource(dir);
    expect(a).toMatchObject({ kind: 'folder', platform: 'folder', source: fs.realpathSync(dir) });
    expect(recogniseSource(`${dir}/`).source).toBe(a.source);
    expect(recogniseSource(link).source).toBe(a.source);
    expect(recogniseSource(path.basename(dir), path.dirname(dir)).source).toBe(a.source);
  });

  it('refuses a file as NOT_A_FOLDER and a missing path as FOLDER_NOT_FOUND', () => {
    const dir = tempDir('src');
    fs.writeFileSync(path.join(dir, 'a.mp3'), 'x');
    expect(refusal(() => recogniseSource(path.join(dir, 'a.mp3'))).code).toBe('NOT_A_FOLDER');
    expect(refusal(() => recogniseSource(path.join(dir, 'nope'))).code).toBe('FOLDER_NOT_FOUND');
    expect(refusal(() => recogniseSource('./nope/deeper')).code).toBe('FOLDER_NOT_FOUND');
  });

  it.each([
    ['not a url'],
    [''],
    ['   '],
    ['ftp://example.com/feed.xml'],
    ['file:///etc/passwd'],
    ['https://example.com/'],
    ['https://www.youtube.com/watch?v=dQw4w9WgXcQ'],
    ['https://youtu.be/dQw4w9WgXcQ'],
    ['https://vimeo.com/'],
    ['http://'],
  ])('refuses %j as SOURCE_UNRECOGNISED with one sentence', (input) => {
    const r = refusal(() => recogniseSource(input, tempDir('cwd')));
    expect(r.code).toBe('SOURCE_UNRECOGNISED');
    expect(r.message.split('\n')).toHaveLength(1);
    expect(r.message.trim().endsWith('.')).toBe(true);
  });

  it.each([
    ['https://feeds.npr.org/510289/podcast.xml'],
    ['https://example.com/feed'],
    ['http://example.org/blog/rss'],
    ['https://anchor.fm/s/abc123/podcast/rss'],
    ['https://feeds.simplecast.com/54nAGcIl'],
    ['https://example.com/show.atom'],
    ['https://example.com/index.php?format=rss'],
  ])('recognises %s as a feed', (input) => {
    expect(recogniseSource(input)).toMatchObject({ kind: 'feed', platform: 'podcast' });
  });

  it.each([
    ['https://www.youtube.com/@veritasium', 'youtube', '@veritasium'],
    ['https://youtube.com/channel/UC123abc', 'youtube', 'UC123abc'],
    ['https://m.youtube.com/c/SomeName/videos', 'youtube', 'SomeName'],
    ['https://www.youtube.com/playlist?list=PL0123', 'youtube', 'YouTube playlist PL0123'],
    ['https://youtu.be/abc?list=PL9', 'youtube', 'YouTube playlist PL9'],
    ['youtube.com/@typed', 'youtube', '@typed'],
    ['https://vimeo.com/channels/staffpicks', 'vimeo', 'staffpicks'],
    ['https://www.twitch.tv/somestreamer', 'twitch', 'somestreamer'],
    ['https://artist.bandcamp.com', 'bandcamp', 'artist.bandcamp.com'],
  ])('recognises %s as a %s platform channel', (input, platform, title) => {
    expect(recogniseSource(input)).toMatchObject({ kind: 'platform', platform, title });
  });

  it('normalises URLs so trailing slashes and fragments do not make a second channel', () => {
    expect(recogniseSource('https://www.youtube.com/@veritasium/').source).toBe(recogniseSource('https://WWW.YouTube.com/@veritasium#x').source);
  });
});

describe('ids', () => {
  it('are stable, short and distinct for same-named sources', () => {
    expect(channelId('My Podcasts', '/a/My Podcasts', 'folder')).toBe(channelId('My Podcasts', '/a/My Podcasts', 'folder'));
    expect(channelId('My Podcasts', '/a/My Podcasts', 'folder')).not.toBe(channelId('My Podcasts', '/b/My Podcasts', 'folder'));
    expect(channelId('My Podcasts', '/a', 'folder')).toMatch(/^my-podcasts-[0-9a-f]{6}$/);
    expect(channelId('日本語', '/c', 'folder')).toMatch(/^folder-[0-9a-f]{6}$/);
    expect(slug('Café Crème')).toBe('cafe-creme');
  });
});
