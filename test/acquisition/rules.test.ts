// The small rules on their own: which addresses are refused, URLs without their credentials, media
// names safe on every OS, the template setting's validation, the cooldown's backoff and the pacer.
import { describe, expect, it } from 'vitest';
import { checkFetchUrl, isForbiddenAddress, redactUrl } from '../../src-main/library/net/url-policy';
import { mediaRelativePath, safeName } from '../../src-main/library/media-names';
import { checkSetting } from '../../src-shared/settings/settings-schema';
import { cooldownSeconds } from '../../src-main/gates/network-cooldown';
import { DownloadPacer } from '../../src-main/gates/download-pacer';
import { retryAfterSeconds } from '../../src-main/library/net/http-get';
import { classifyYtDlpError, scrubCredentials } from '../../src-main/engines/yt-dlp-errors';
import { entryFromYtDlp } from '../../src-main/engines/yt-dlp-listing/entry';

describe('URL policy', () => {
  it('refuses link-local and metadata addresses in every spelling, allows loopback and public ones', () => {
    for (const a of ['169.254.169.254', '169.254.0.1', 'fe80::1', 'FE80::abcd', 'fd00:ec2::254', 'fd00:ec2:0:0:0:0:0:254', '::ffff:169.254.169.254']) expect(isForbiddenAddress(a), a).toBe(true);
    for (const a of ['127.0.0.1', '::1', '10.0.0.1', '93.184.216.34', 'fd00:ec2::253', '2001:db8::1']) expect(isForbiddenAddress(a), a).toBe(false);
    expect(() => checkFetchUrl('http://169.254.169.254/latest')).toThrow(/link-local or cloud metadata/);
    expect(() => checkFetchUrl('http://[fd00:ec2::254]/')).toThrow(/link-local/);
    expect(() => checkFetchUrl('file:///etc/passwd')).toThrow(/only http and https/);
  });

  it('never shows credentials back', () => {
    expect(redactUrl('https://alice:s3cret@example.com/feed?x=1')).toBe('https://***@example.com/feed?x=1');
    expect(redactUrl('not a url //bob:pw@host')).not.toMatch(/pw/);
    let message = '';
    try { checkFetchUrl('gopher://u:topsecret@h/'); } catch (e) { message = (e as Error).message; }
    expect(message).not.toMatch(/topsecret/);
    expect(scrubCredentials('ERROR: http://u:pw@h/x failed')).toBe('ERROR: http://***@h/x failed');
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterSeconds('120')).toBe(120);
    expect(retryAfterSeconds(new Date(Date.UTC(2030, 0, 1, 0, 2)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(120);
    expect(retryAfterSeconds(undefined)).toBeNull();
    expect(retryAfterSeconds('soon')).toBeNull();
  });
});

describe('media names', () => {
  it('fills the template with names safe on every OS and keeps the extension', () => {
    expect(mediaRelativePath('{channel}/{date} {title} [{id}].{ext}', { channel: 'A/B: "c"', publishedAt: Date.UTC(2024, 0, 1) / 1000, title: 'Who? <x>', id: 'g/1', ext: 'MP3' }))
      .toBe('A_B_ _c_/2024-01-01 Who_ _x_ [g_1].mp3');
    expect(safeName('CON')).toBe('_CON');
    expect(safeName('name. . ')).toBe('name');
    expect(safeName('a\u0000b\nc')).toBe('a b c');
    expect(Buffer.byteLength(safeName('é'.repeat(300)))).toBeLessThanOrEqual(180);
    const long = mediaRelativePath('{title} [{id}].{ext}', { channel: 'c', publishedAt: 0, title: 'x'.repeat(400), id: 'id', ext: 'm4a' });
    expect(long.endsWith('.m4a')).toBe(true);
  });

  it('validates the template setting', () => {
    expect(checkSetting('download.mediaTemplate', '{channel}/{title} [{id}].{ext}').ok).toBe(true);
    for (const bad of ['{title}.{ext}', '{channel}/{id}', '/abs/{id}.{ext}', '../{id}.{ext}', '{nope} {id}.{ext}']) {
      expect(checkSetting('download.mediaTemplate', bad).ok, bad).toBe(false);
    }
    expect(checkSetting('politeness.dailyCaps', { youtube: { items: 50, bytes: 1e9 } }).ok).toBe(true);
    expect(checkSetting('politeness.dailyCaps', { youtube: { items: 0 } }).ok).toBe(false);
    expect(checkSetting('politeness.dailyCaps', { youtube: { lots: 1 } }).ok).toBe(false);
    expect(checkSetting('download.limitRate', '2M').ok).toBe(true);
    expect(checkSetting('download.limitRate', 'fast').ok).toBe(false);
  });
});

describe('cooldown and pacing', () => {
  it('doubles the cooldown per refusal up to the maximum, never below Retry-After', () => {
    const p = { baseS: 300, maxS: 3600 };
    expect([1, 2, 3, 4, 5].map((l) => cooldownSeconds(l, p, null))).toEqual([300, 600, 1200, 2400, 3600]);
    expect(cooldownSeconds(1, p, 900)).toBe(900);
    expect(cooldownSeconds(3, p, 10)).toBe(1200);
  });

  it('lets at most N downloads run per host and spaces their starts by the interval', async () => {
    let now = 0;
    const pacer = new DownloadPacer(() => ({ perHost: 1, minIntervalS: 0, jitter: 0 }), () => 0, () => now);
    const signal = new AbortController().signal;
    const waits: string[] = [];
    const a = await pacer.acquire('h', signal, (w) => waits.push(`a:${w}`));
    let bStarted = false;
    const b = pacer.acquire('h', signal, (w) => waits.push(`b:${w}`)).then((r) => { bStarted = true; return r; });
    const other = await pacer.acquire('other', signal, () => waits.push('other'));
    await Promise.resolve();
    expect(bStarted).toBe(false);
    expect(pacer.runningOn('h')).toBe(1);
    a();
    (await b)();
    other();
    expect(waits).toEqual(['b:host']);
    expect(pacer.runningOn('h')).toBe(0);
    const abort = new AbortController();
    const held = await pacer.acquire('h', signal, () => undefined);
    const gone = pacer.acquire('h', abort.signal, () => undefined);
    abort.abort();
    await expect(gone).rejects.toThrow(/aborted/);
    held();
    now = 0;
    const spaced = new DownloadPacer(() => ({ perHost: 4, minIntervalS: 0.05, jitter: 0 }), () => 0);
    const asked: number[] = [];
    (await spaced.acquire('h', signal, () => undefined))();
    (await spaced.acquire('h', signal, (_w, ms) => asked.push(ms)))();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toBeGreaterThan(0);
  });
});

describe('yt-dlp lines', () => {
  it('classifies refusals, live and upcoming, a full disk and unavailable videos', () => {
    expect(classifyYtDlpError('WARNING: x\nERROR: [youtube] abc: HTTP Error 429: Too Many Requests')).toEqual({ code: 'NETWORK_REFUSED', params: { status: 429 } });
    expect(classifyYtDlpError("ERROR: [youtube] abc: Sign in to confirm you're not a bot")).toMatchObject({ code: 'NETWORK_REFUSED', params: { reason: 'bot-check' } });
    expect(classifyYtDlpError('ERROR: [youtube] abc: This live event will begin in 3 hours.')).toMatchObject({ code: 'UPCOMING' });
    expect(classifyYtDlpError('ERROR: unable to write data: [Errno 28] No space left on device')).toMatchObject({ code: 'DISK_FULL' });
    expect(classifyYtDlpError('ERROR: [youtube] abc: Private video')).toMatchObject({ code: 'DOWNLOAD_UNAVAILABLE' });
    expect(classifyYtDlpError('nothing here')).toBeNull();
  });

  it('reads flat entries: platform ids, the generic extractor\'s smuggled id, live status', () => {
    expect(entryFromYtDlp({ id: 'abc', title: 'T', timestamp: 100, duration: 60, url: 'https://y/abc', live_status: 'is_upcoming', filesize_approx: 1234.5 }))
      .toMatchObject({ externalId: 'abc', publishedAt: 100, durationS: 60, live: 'upcoming', enclosureLength: 1235 });
    expect(entryFromYtDlp({ url: 'http://h/a.mp3#__youtubedl_smuggle=%7B%22force_videoid%22%3A+%22ep-1%22%7D', title: 'E', upload_date: '20240102' }))
      .toMatchObject({ externalId: 'ep-1', publishedAt: Date.UTC(2024, 0, 2) / 1000, live: null });
    expect(entryFromYtDlp({ title: 'no id' })).toBeNull();
  });
});
