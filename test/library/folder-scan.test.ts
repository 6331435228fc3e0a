import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Host } from '../../src-main/host/host';
import { addSource } from '../../src-main/library/add-source';
import type { ScanOptions } from '../../src-main/library/folder-scan';
import { scanFolderChannel } from '../../src-main/library/folder-scan';
import { ScanJobs } from '../../src-main/library/scan-jobs';
import { snapshot } from '../../src-main/work/snapshot';
import { commitOutput, itemByName, makeTone, openHost, stateOf, statesOf, tempDir } from './helpers';

const hosts: Host[] = [];
afterEach(() => {
  for (const h of hosts.splice(0)) h.close();
});

async function folderChannel(files: Record<string, number>, scan: ScanOptions = {}) {
  const media = tempDir('media');
  for (const [name, freq] of Object.entries(files)) makeTone(path.join(media, name), 1, freq);
  const data = tempDir('data');
  const host = openHost(data);
  hosts.push(host);
  const { channel } = await addSource(host, media, { scan });
  return { host, media, data, channelId: channel.id };
}

describe('folder scan: state transitions', () => {
  it('changed file: new fingerprint, download still done, present outputs go stale', async () => {
    const { host, media, channelId } = await folderChannel({ 'a.mp3': 440, 'b.mp3': 550 });
    const a = itemByName(host, channelId, 'a.mp3');
    commitOutput(host, 'transcribe', a.id);
    expect(stateOf(host, 'transcribe', a.id)).toBe('done');

    const unchanged = await scanFolderChannel(host, channelId);
    expect(unchanged).toMatchObject({ added: 0, changed: 0, removed: 0, unchanged: 2 });
    expect(stateOf(host, 'transcribe', a.id)).toBe('done');

    makeTone(path.join(media, 'a.mp3'), 2, 660);
    const r = await scanFolderChannel(host, channelId);
    expect(r).toMatchObject({ added: 0, changed: 1, removed: 0 });
    const after = itemByName(host, channelId, 'a.mp3');
    expect(after.fingerprint).not.toBe(a.fingerprint);
    expect(after.duration_s).toBeGreaterThan(1.5);
    expect(statesOf(host, a.id)).toMatchObject({ download: 'done', transcribe: 'stale', diarize: 'missing' });
    expect(stateOf(host, 'transcribe', itemByName(host, channelId, 'b.mp3').id)).toBe('missing');
  });

  it('deleted file: exactly that item goes missing-input (history kept); it comes back local', async () => {
    const { host, media, channelId } = await folderChannel({ 'a.mp3': 440, 'b.mp3': 550, 'c.mp3': 660 });
    const a = itemByName(host, channelId, 'a.mp3');
    const b = itemByName(host, channelId, 'b.mp3');
    const c = itemByName(host, channelId, 'c.mp3');
    commitOutput(host, 'transcribe', b.id);
    const before = { a: statesOf(host, a.id), c: statesOf(host, c.id) };

    const saved = fs.readFileSync(path.join(media, 'b.mp3'));
    const stat = fs.statSync(path.join(media, 'b.mp3'));
    fs.rmSync(path.join(media, 'b.mp3'));
    const r = await scanFolderChannel(host, channelId);
    expect(r).toMatchObject({ added: 0, changed: 0, removed: 1 });
    const gone = host.library.item(b.id)!;
    expect(gone.media_state).toBe('gone');
    expect(gone.title).toBe('b');
    // The output it had stays done (its input was consumed); everything that still needs the media is missing-input.
    expect(statesOf(host, b.id)).toEqual({
      'attribute-voices': 'missing-input', 'attribute-words': 'missing-input', diarize: 'missing-input',
      digest: 'missing-input', download: 'missing-input', transcribe: 'done',
    });
    expect(statesOf(host, a.id)).toEqual(before.a);
    expect(statesOf(host, c.id)).toEqual(before.c);
    const ops = snapshot(host.db).channels[0].operations;
    expect(ops.download).toMatchObject({ done: 2, missingInput: 1 });
    expect(ops.diarize).toMatchObject({ missing: 2, missingInput: 1 });

    // A second pass does not count it again.
    expect((await scanFolderChannel(host, channelId)).removed).toBe(0);

    fs.writeFileSync(path.join(media, 'b.mp3'), saved);
    fs.utimesSync(path.join(media, 'b.mp3'), stat.atime, stat.mtime);
    const back = await scanFolderChannel(host, channelId);
    expect(back).toMatchObject({ added: 0, changed: 0, returned: 1, removed: 0 });
    expect(host.library.item(b.id)!.media_state).toBe('local');
    expect(statesOf(host, b.id)).toMatchObject({ download: 'done', transcribe: 'done', diarize: 'missing' });
    expect(host.library.itemsOfChannel(channelId)).toHaveLength(3);
  });

  it('treats unicode, spaces, quotes, backticks and $() as ordinary names', async () => {
    const names = ['naïve café.mp3', 'it\'s "quoted".mp3', '$(touch PWNED).mp3', 'back`tick`.mp3', '日本語 テスト.wav', '-dash start.mp3', 'semi;colon & amp.mp3', 'concat:x.mp3'];
    const files = Object.fromEntries(names.map((n, i) => [n, 300 + i * 50]));
    const { host, media, channelId } = await folderChannel(files);
    const items = host.library.itemsOfChannel(channelId);
    expect(items.map((i) => i.external_id).sort()).toEqual([...names].sort());
    for (const item of items) {
      expect(item.media_path).toBe(path.join(fs.realpathSync(media), item.external_id));
      expect(item.duration_s).toBeGreaterThan(0.5);
      expect(item.title).toBe(item.external_id.replace(/\.[^.]+$/, ''));
    }
    expect(fs.existsSync(path.join(media, 'PWNED'))).toBe(false);
    expect(fs.existsSync(path.join(process.cwd(), 'PWNED'))).toBe(false);
  });

  it('ignores other files; recurses into subfolders, skips hidden ones; a .mp3 that is not media is an item held as unreadable', async () => {
    const media = tempDir('media');
    makeTone(path.join(media, 'sub', 'deeper', 'x.mp3'));
    makeTone(path.join(media, '.hidden', 'h.mp3'));
    fs.writeFileSync(path.join(media, 'notes.txt'), 'hello');
    fs.writeFileSync(path.join(media, 'fake.mp3'), 'this is not audio at all');
    fs.writeFileSync(path.join(media, 'cover.jpg'), 'jpeg?');
    const host = openHost(tempDir('data'));
    hosts.push(host);
    const { channel, scan } = await addSource(host, media);
    expect(scan!.probed).toBe(true);
    expect(host.library.itemsOfChannel(channel.id).map((i) => i.external_id).sort()).toEqual(['fake.mp3', 'sub/deeper/x.mp3']);
    expect(scan).toMatchObject({ added: 2, ignored: 2, skipped: 0, unreadable: 1 });
  });

  it('skips unreadable entries with a warning instead of failing (dangling link, link loop, FIFO)', async () => {
    const media = tempDir('media');
    makeTone(path.join(media, 'good.mp3'));
    fs.symlinkSync(path.join(media, 'does-not-exist.mp3'), path.join(media, 'dangling.mp3'));
    fs.symlinkSync(path.join(media, 'loop.mp3'), path.join(media, 'loop.mp3'));
    execFileSync('mkfifo', [path.join(media, 'pipe.mp3')]);
    const host = openHost(tempDir('data'));
    hosts.push(host);
    const { channel, scan } = await addSource(host, media);
    expect(host.library.itemsOfChannel(channel.id).map((i) => i.external_id)).toEqual(['good.mp3']);
    expect(scan!.skipped).toBe(3);
    expect(scan!.warnings.map((w) => [path.basename(w.path), w.code]).sort()).toEqual([
      ['dangling.mp3', 'FILE_UNREADABLE'], ['loop.mp3', 'FILE_UNREADABLE'], ['pipe.mp3', 'NOT_A_REGULAR_FILE'],
    ]);
    for (const w of scan!.warnings) expect(w.message.split('\n')).toHaveLength(1);
  });

  it('an item whose file turns unreadable keeps its state (an I/O error is not a deletion)', async () => {
    const { host, media, channelId } = await folderChannel({ 'a.mp3': 440 });
    const a = itemByName(host, channelId, 'a.mp3');
    fs.rmSync(path.join(media, 'a.mp3'));
    fs.symlinkSync(path.join(media, 'a.mp3'), path.join(media, 'a.mp3')); // a loop: ELOOP on every read
    const r = await scanFolderChannel(host, channelId);
    expect(r).toMatchObject({ removed: 0, skipped: 1 });
    expect(host.library.item(a.id)!.media_state).toBe('local');
  });

  it('refuses to scan a folder that vanished, changing nothing', async () => {
    const { host, media, channelId } = await folderChannel({ 'a.mp3': 440 });
    fs.rmSync(media, { recursive: true });
    await expect(scanFolderChannel(host, channelId)).rejects.toMatchObject({ code: 'FOLDER_NOT_FOUND' });
    expect(host.library.itemsOfChannel(channelId)[0].media_state).toBe('local');
    await expect(scanFolderChannel(host, 'no-such-channel')).rejects.toMatchObject({ code: 'CHANNEL_NOT_FOUND' });
  });
});

describe('folder scan: the resumable job', () => {
  it('checkpoints every page and resumes from the cursor without duplicating or losing items', async () => {
    const files = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`f${i}.mp3`, 300 + i * 40]));
    const stop = new Error('stop after the second page');
    const media = tempDir('media');
    for (const [n, f] of Object.entries(files)) makeTone(path.join(media, n), 1, f);
    const host = openHost(tempDir('data'));
    hosts.push(host);
    const first = addSource(host, media, { scan: { pageSize: 2, onCheckpoint: ({ page }) => { if (page === 2) throw stop; } } });
    await expect(first).rejects.toBe(stop);
    const channelId = host.library.channels()[0].id;
    const job = new ScanJobs(host.db).get(channelId)!;
    expect(job).toMatchObject({ status: 'running', lease_owner: null, cursor: JSON.stringify(['f3.mp3']) });
    expect(host.library.itemsOfChannel(channelId)).toHaveLength(4);

    const r = await scanFolderChannel(host, channelId, { pageSize: 2 });
    expect(r).toMatchObject({ resumed: true, restarted: false, added: 3, removed: 0, generation: job.generation });
    const items = host.library.itemsOfChannel(channelId);
    expect(items.map((i) => i.external_id).sort()).toEqual(Object.keys(files).sort());
    expect(new ScanJobs(host.db).get(channelId)).toMatchObject({ status: 'finished', cursor: null, lease_owner: null });
    expect(host.db.prepare('SELECT COUNT(*) AS n FROM scan_seen').get()).toEqual({ n: 0 });
  });

  it('refuses a second scanner while the first holds the lease, and lets it in afterwards', async () => {
    const { host, data, channelId } = await folderChannel({ 'a.mp3': 440, 'b.mp3': 500, 'c.mp3': 560 });
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    let reached!: () => void;
    const atCheckpoint = new Promise<void>((r) => { reached = r; });
    const first = scanFolderChannel(host, channelId, { pageSize: 1, onCheckpoint: async ({ page }) => { if (page === 1) { reached(); await held; } } });
    await atCheckpoint;
    const other = openHost(data);
    hosts.push(other);
    const refused = scanFolderChannel(other, channelId);
    await expect(refused).rejects.toMatchObject({ code: 'SCAN_IN_PROGRESS' });
    await expect(refused).rejects.toThrow(/already being scanned/);
    release();
    await expect(first).resolves.toMatchObject({ removed: 0 });
    await expect(scanFolderChannel(other, channelId)).resolves.toMatchObject({ unchanged: 3 });
  });

  it('takes over a lease whose holder died or expired', async () => {
    const { host, channelId } = await folderChannel({ 'a.mp3': 440 });
    const now = host.now();
    const set = host.db.prepare("UPDATE scan_jobs SET status = 'running', cursor = NULL, lease_owner = ?, lease_expires_at = ? WHERE channel_id = ?");
    set.run(`${os.hostname()}/2147483646/dead`, now + 3600, channelId); // a pid that does not exist
    await expect(scanFolderChannel(host, channelId)).resolves.toMatchObject({ removed: 0 });
    set.run('another-host/1/x', now - 1, channelId); // expired
    await expect(scanFolderChannel(host, channelId)).resolves.toMatchObject({ removed: 0 });
    set.run('another-host/1/x', now + 3600, channelId); // live, elsewhere
    await expect(scanFolderChannel(host, channelId)).rejects.toMatchObject({ code: 'SCAN_IN_PROGRESS' });
  });

  it('restarts from scratch when the folder settings change, and applies the new settings', async () => {
    const media = tempDir('media');
    makeTone(path.join(media, 'a.mp3'), 1, 440);
    makeTone(path.join(media, 'b.wav'), 1, 500);
    makeTone(path.join(media, 'c.mp3'), 1, 560);
    makeTone(path.join(media, 'sub', 'd.mp3'), 1, 620);
    const host = openHost(tempDir('data'));
    hosts.push(host);
    const { channel } = await addSource(host, media);
    expect(host.library.itemsOfChannel(channel.id)).toHaveLength(4);
    const g1 = new ScanJobs(host.db).get(channel.id)!.generation;

    // Interrupt a pass, then change the settings: the half pass is thrown away.
    const stop = new Error('stop');
    await expect(scanFolderChannel(host, channel.id, { pageSize: 1, onCheckpoint: () => { throw stop; } })).rejects.toBe(stop);
    expect(new ScanJobs(host.db).get(channel.id)!.cursor).not.toBeNull();
    host.library.setChannelSettings(channel.id, { extensions: ['MP3'], recursive: false });
    const r = await scanFolderChannel(host, channel.id, { pageSize: 1 });
    expect(r).toMatchObject({ restarted: true, resumed: false, removed: 2, generation: g1 + 2 });
    const local = host.library.itemsOfChannel(channel.id).filter((i) => i.media_state === 'local').map((i) => i.external_id);
    expect(local.sort()).toEqual(['a.mp3', 'c.mp3']);
  });

  it('restarts when the settings change in the middle of a running pass', async () => {
    const media = tempDir('media');
    for (const n of ['a', 'b', 'c', 'd']) makeTone(path.join(media, `${n}.mp3`), 1, 300 + n.charCodeAt(0));
    makeTone(path.join(media, 'e.wav'));
    const host = openHost(tempDir('data'));
    hosts.push(host);
    const { channel } = await addSource(host, media);
    const r = await scanFolderChannel(host, channel.id, {
      pageSize: 1,
      onCheckpoint: ({ page }) => { if (page === 2) host.library.setChannelSettings(channel.id, { extensions: ['wav'] }); },
    });
    expect(r.restarted).toBe(true);
    const local = host.library.itemsOfChannel(channel.id).filter((i) => i.media_state === 'local').map((i) => i.external_id);
    expect(local).toEqual(['e.wav']);
  });
});
