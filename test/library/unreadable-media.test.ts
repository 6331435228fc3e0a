// Files named like media that cannot be read are items that say why (MEDIA_EMPTY, MEDIA_UNREADABLE),
// counted by the scan and tried again when they change; a truncated mp3 is as long as what can be
// read of it (issue 20 item 2, issue 21 item 9). Real files made by ffmpeg, real ffprobe.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Host } from '../../src-main/host/host';
import { addSource } from '../../src-main/library/add-source';
import { describeScan, scanFolderChannel } from '../../src-main/library/folder-scan';
import { createProber } from '../../src-main/library/ffprobe';
import { itemByName, makeTone, openHost, statesOf, tempDir } from './helpers';

const hosts: Host[] = [];
afterEach(() => {
  for (const h of hosts.splice(0)) h.close();
});

/** A 6 s constant-bit-rate mp3 whose Info header counts every frame, cut to its first 10,000 bytes (about 2.4 s). */
function truncatedMp3(file: string): string {
  const whole = `${file}.whole.mp3`;
  execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=6', '-ac', '1', '-ar', '16000', '-b:a', '32k', `file:${whole}`]);
  fs.writeFileSync(file, fs.readFileSync(whole).subarray(0, 10_000));
  fs.rmSync(whole);
  return file;
}

function holdOf(host: Host, itemId: string): Record<string, string | null> {
  const rows = host.db.prepare("SELECT operation, deferral_code FROM work WHERE item_id = ? AND operation IN ('transcribe', 'diarize') ORDER BY operation").all(itemId) as { operation: string; deferral_code: string | null }[];
  return Object.fromEntries(rows.map((r) => [r.operation, r.deferral_code]));
}

describe('unreadable media in a watched folder', () => {
  it('becomes an item that says why, is counted, and is tried again when the file changes', async () => {
    const media = tempDir('media');
    makeTone(path.join(media, 'good.mp3'), 1, 440);
    fs.writeFileSync(path.join(media, 'fake.mp3'), 'this is a text file, not audio\n');
    fs.writeFileSync(path.join(media, 'empty.wav'), '');
    const host = openHost(tempDir('data'));
    hosts.push(host);
    const { channel, scan } = await addSource(host, media);
    expect(scan).toMatchObject({ added: 3, unreadable: 2, skipped: 0 });
    expect(describeScan(scan!)).toMatch(/, 2 unreadable/);

    const fake = itemByName(host, channel.id, 'fake.mp3');
    const empty = itemByName(host, channel.id, 'empty.wav');
    const good = itemByName(host, channel.id, 'good.mp3');
    expect(holdOf(host, fake.id)).toEqual({ diarize: 'MEDIA_UNREADABLE', transcribe: 'MEDIA_UNREADABLE' });
    expect(holdOf(host, empty.id)).toEqual({ diarize: 'MEDIA_EMPTY', transcribe: 'MEDIA_EMPTY' });
    expect(statesOf(host, fake.id)).toMatchObject({ download: 'done', transcribe: 'deferred', diarize: 'deferred', 'attribute-words': 'blocked' });
    expect(statesOf(host, good.id)).toMatchObject({ transcribe: 'missing', diarize: 'missing' });
    expect(holdOf(host, good.id)).toEqual({ diarize: null, transcribe: null });

    // Nothing changed: still counted, nothing added.
    expect(await scanFolderChannel(host, channel.id)).toMatchObject({ added: 0, changed: 0, unreadable: 2 });

    // The text file is replaced by real audio, the empty file gets text: each is probed again.
    makeTone(path.join(media, 'fake.mp3'), 2, 660);
    fs.writeFileSync(path.join(media, 'empty.wav'), 'still not audio');
    const again = await scanFolderChannel(host, channel.id);
    expect(again).toMatchObject({ added: 0, changed: 2, unreadable: 1 });
    expect(holdOf(host, fake.id)).toEqual({ diarize: null, transcribe: null });
    expect(statesOf(host, fake.id)).toMatchObject({ transcribe: 'missing', diarize: 'missing' });
    expect(host.library.item(fake.id)!.duration_s).toBeGreaterThan(1.5);
    expect(holdOf(host, empty.id)).toEqual({ diarize: 'MEDIA_UNREADABLE', transcribe: 'MEDIA_UNREADABLE' });

    // A deleted unreadable file is gone, no longer counted as unreadable.
    fs.rmSync(path.join(media, 'empty.wav'));
    expect(await scanFolderChannel(host, channel.id)).toMatchObject({ removed: 1, unreadable: 0 });
  });

  it('gives a truncated mp3 the length that can be read, not what its header promises', async () => {
    const media = tempDir('media');
    const file = truncatedMp3(path.join(media, 'cut.mp3'));
    const prober = await createProber();
    const header = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'json', `file:${file}`], { encoding: 'utf8' })) as { format: { duration: string } };
    expect(Number(header.format.duration)).toBeGreaterThan(5.5); // what the header says
    const probed = await prober.probe(file);
    expect(probed.media).toBe(true);
    const d = probed.media ? probed.durationS! : 0;
    expect(d).toBeGreaterThan(2);
    expect(d).toBeLessThan(3);

    const host = openHost(tempDir('data'));
    hosts.push(host);
    const { channel } = await addSource(host, media);
    const item = itemByName(host, channel.id, 'cut.mp3');
    expect(item.duration_s).toBeCloseTo(d, 3);
    expect(statesOf(host, item.id)).toMatchObject({ transcribe: 'missing' });
  });

  it('keeps the header length of an intact file (the check costs nothing there)', async () => {
    const media = tempDir('media');
    const file = makeTone(path.join(media, 'whole.mp3'), 3, 500);
    const probed = await (await createProber()).probe(file);
    expect(probed.media && probed.durationS).toBeGreaterThan(2.9);
  });
});
