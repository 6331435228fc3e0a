// The folder scan as the sync engine runs it (issue 18 §1): the program examines the folder writing
// nothing, and the whole pass comes back as a folder-scan record plan that its one recorder applies
// in the settle transaction: the same items, gone marks and summary as the paged scan.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Host } from '../../src-main/host/host';
import { addSource } from '../../src-main/library/add-source';
import { examineFolder } from '../../src-main/library/folder-scan-pass';
import { folderScanAdapter } from '../../src-main/engines/folder-scan/adapter';
import type { JobContext } from '../../src-main/engines/adapter';
import type { EngineSuccess } from '../../src-main/engines/runner';
import { ScanJobs } from '../../src-main/library/scan-jobs';
import { recordPlans } from '../../src-main/units/unit-recorders';
import type { RecordPlan } from '../../src-main/engines/record-plans';
import { isBacklotError } from '../../src-shared/errors';
import type { LogMessage } from '../../src-shared/runs/log-keys';
import { itemByName, makeTone, openHost, tempDir } from './helpers';

const hosts: Host[] = [];
afterEach(() => { for (const h of hosts.splice(0)) h.close(); });

async function folderChannel(files: Record<string, number>) {
  const media = tempDir('media');
  for (const [name, freq] of Object.entries(files)) makeTone(path.join(media, name), 1, freq);
  const data = tempDir('data');
  const host = openHost(data);
  hosts.push(host);
  const { channel } = await addSource(host, media);
  return { host, media, data, channelId: channel.id };
}

async function planOf(host: Host, channelId: string): Promise<Extract<RecordPlan, { kind: 'folder-scan' }>> {
  const pass = await examineFolder(host.library.channel(channelId)!, host.library);
  return { kind: 'folder-scan', channelId, settingsFingerprint: pass.settingsFingerprint, findings: pass.findings, unchanged: pass.unchanged };
}

function record(host: Host, data: string, plan: RecordPlan): { lines: LogMessage[]; code: string | null } {
  const lines: LogMessage[] = [];
  try {
    host.transaction(() => recordPlans([plan], { host, dataDir: data, now: host.now(), log: (_level, line) => lines.push(line) }));
    return { lines, code: null };
  } catch (e) {
    return { lines, code: isBacklotError(e) ? e.code : String(e) };
  }
}

describe('folder scan pass', () => {
  it('examines writing nothing, then records added, changed and removed files in one step with its summary', async () => {
    const { host, media, data, channelId } = await folderChannel({ 'a.mp3': 440, 'b.mp3': 550 });
    const a = itemByName(host, channelId, 'a.mp3');
    makeTone(path.join(media, 'a.mp3'), 2, 660);
    fs.rmSync(path.join(media, 'b.mp3'));
    makeTone(path.join(media, 'c.mp3'), 1, 770);
    const items = host.db.prepare('SELECT COUNT(*) FROM items').pluck();
    const before = host.db.prepare('SELECT id, media_state, fingerprint FROM items ORDER BY id').all();
    const plan = await planOf(host, channelId);
    // The program's half wrote nothing.
    expect(host.db.prepare('SELECT id, media_state, fingerprint FROM items ORDER BY id').all()).toEqual(before);
    const r = record(host, data, plan);
    expect(r.code).toBeNull();
    expect(r.lines.map((l) => l.key)).toEqual(['scanSummary']);
    expect(r.lines[0].params).toEqual({ added: 1, changed: 1, removed: 1, unchanged: 0 });
    expect(items.get()).toBe(3);
    expect(itemByName(host, channelId, 'a.mp3').fingerprint).not.toBe(a.fingerprint);
    expect(itemByName(host, channelId, 'b.mp3').media_state).toBe('gone');
    expect(itemByName(host, channelId, 'c.mp3').media_state).toBe('local');
    expect(new ScanJobs(host.db).get(channelId)).toMatchObject({ status: 'finished', lease_owner: null, cursor: null });
    // Recorded again: nothing more changes.
    const again = record(host, data, await planOf(host, channelId));
    expect(again.lines[0].params).toEqual({ added: 0, changed: 0, removed: 0, unchanged: 2 });
  });

  it('refuses with INPUT_CHANGED when the folder settings moved since the pass, and with SCAN_IN_PROGRESS under a live paged scan; nothing written', async () => {
    const { host, media, data, channelId } = await folderChannel({ 'a.mp3': 440 });
    makeTone(path.join(media, 'b.mp3'), 1, 550);
    const plan = await planOf(host, channelId);
    host.library.setChannelSettings(channelId, { ...JSON.parse(host.library.channel(channelId)!.settings_json) as object, recursive: false, extensions: ['mp3', 'wav'] });
    expect(record(host, data, plan).code).toBe('INPUT_CHANGED');
    expect(host.library.itemByExternalId(channelId, 'b.mp3')).toBeUndefined();

    const fresh = await planOf(host, channelId);
    const jobs = new ScanJobs(host.db);
    jobs.begin(channelId, fresh.settingsFingerprint, `${process.pid}-other`, host.now(), 600);
    expect(record(host, data, fresh).code).toBe('SCAN_IN_PROGRESS');
    expect(host.library.itemByExternalId(channelId, 'b.mp3')).toBeUndefined();
    jobs.release(channelId, `${process.pid}-other`);
    expect(record(host, data, fresh).code).toBeNull();
    expect(host.library.itemByExternalId(channelId, 'b.mp3')?.media_state).toBe('local');
  });
  it('refuses a channel that is not a folder or was removed before reading the folder, and a commit without its pass records nothing', async () => {
    const { host, channelId } = await folderChannel({ 'a.mp3': 440 });
    const channel = host.library.channel(channelId)!;
    const codeOf = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => (isBacklotError(e) ? e.code : String(e)));
    expect(await codeOf(examineFolder({ ...channel, kind: 'feed' }, host.library))).toBe('NOT_A_FOLDER_CHANNEL');
    expect(await codeOf(examineFolder({ ...channel, removed_at: host.now() }, host.library))).toBe('CHANNEL_NOT_FOUND');

    // The commit takes the pass from the outcome: none, or another channel's, is refused by name.
    const pass = await examineFolder(channel, host.library);
    const commit = (metadata: Record<string, unknown>) => Promise.resolve().then(() => folderScanAdapter.commit!({ channel } as JobContext, { ok: true, outputs: [], metadata, logs: [], diagnostic: '' } as unknown as EngineSuccess));
    expect(await codeOf(commit({}))).toBe('SCAN_PASS_MISSING');
    expect(await codeOf(commit({ pass: { ...pass, channelId: 'another' } }))).toBe('SCAN_PASS_MISSING');
    const plan = await commit({ pass });
    expect(plan.plans).toEqual([expect.objectContaining({ kind: 'folder-scan', channelId, findings: pass.findings })]);
  });
});
