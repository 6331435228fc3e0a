// The scan's resume after a real kill -9 in the middle of a page: a child process adds the folder,
// commits its first page, stalls inside the second, and is killed; the next scan resumes.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { scanFolderChannel } from '../../src-main/library/folder-scan';
import { ScanJobs } from '../../src-main/library/scan-jobs';
import { snapshot } from '../../src-main/work/snapshot';
import { makeTone, openHost, statesOf, tempDir } from './helpers';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'scan-child.ts');

it('resumes from the last checkpoint after kill -9 mid-page: nothing duplicated, nothing lost', async () => {
  const media = tempDir('media');
  const names = Array.from({ length: 9 }, (_, i) => `track ${String(i).padStart(2, '0')}.mp3`);
  names.forEach((n, i) => makeTone(path.join(media, n), 1, 300 + i * 30));
  const data = tempDir('data');

  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, data, media, '3'], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => { err += String(d); });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += String(d);
      if (/STALLED/.test(out)) resolve();
    });
    child.on('exit', () => reject(new Error(`child ended early: ${out} ${err}`)));
  });
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  expect(out).toContain('CHECKPOINT 1');
  expect(out).not.toContain('CHECKPOINT 2');
  expect(out).toContain(`STALLED ${names[3]}`);

  const host = openHost(data);
  try {
    const channelId = host.library.channels()[0].id;
    const job = new ScanJobs(host.db).get(channelId)!;
    // The dead scanner's lease is still recorded; its pid is gone, so it does not block.
    expect(job).toMatchObject({ status: 'running', cursor: JSON.stringify([names[2]]) });
    expect(job.lease_owner).toMatch(new RegExp(`/${child.pid}/`));
    expect(host.library.itemsOfChannel(channelId)).toHaveLength(3);

    const r = await scanFolderChannel(host, channelId, { pageSize: 3 });
    expect(r).toMatchObject({ resumed: true, added: 6, removed: 0, changed: 0, generation: job.generation });
    const items = host.library.itemsOfChannel(channelId);
    expect(items.map((i) => i.external_id).sort()).toEqual(names);
    expect(new Set(items.map((i) => i.id)).size).toBe(9);
    for (const item of items) expect(statesOf(host, item.id)).toMatchObject({ download: 'done', transcribe: 'missing' });
    const ch = snapshot(host.db).channels[0];
    expect(ch.items).toBe(9);
    expect(ch.operations.download).toMatchObject({ done: 9, missing: 0, missingInput: 0 });
    expect(ch.operations.transcribe).toMatchObject({ missing: 9 });
    expect(ch.operations.sync).toMatchObject({ done: 1 });
    expect(new ScanJobs(host.db).get(channelId)).toMatchObject({ status: 'finished', lease_owner: null });
  } finally {
    host.close();
  }
});
