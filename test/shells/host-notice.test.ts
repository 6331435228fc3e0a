// The `notice` host event: Host.notify checks a notice and emits it to every shell; the wire form
// of every event reads back as the event it was, and a frame that is not ours reads as nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Host } from '../../src-main/host/host';
import { HOST_SIGNALS, hostEventFrame, readHostEventFrame, type HostEvent } from '../../src-shared/api/host-events';
import { targetHash } from '../../src-shared/api/navigation';
import type { HostNotice } from '../../src-shared/notices/notice';

let dir: string;
let host: Host;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-notice-'));
  host = new Host({ databaseFile: path.join(dir, 'backlot.sqlite') });
});
afterEach(() => {
  host.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const notice: HostNotice = { kind: 'run-failed', at: 1700000000, code: 'ENGINE_CRASHED', params: { operation: 'transcribe', item: 'i1', attempts: 3 }, target: { view: 'runs', run: 12 } };

describe('Host.notify', () => {
  it('emits the notice to every listener as a notice event', () => {
    const heard: HostEvent[][] = [[], []];
    host.onEvent((e) => heard[0].push(e));
    host.onEvent((e) => heard[1].push(e));
    host.notify(notice);
    expect(heard).toEqual([[{ event: 'notice', notice }], [{ event: 'notice', notice }]]);
  });

  it('refuses a malformed notice with a named field, and emits nothing', () => {
    const heard: HostEvent[] = [];
    host.onEvent((e) => heard.push(e));
    const bad = [
      { ...notice, kind: 'coffee-ready' },
      { ...notice, code: '' },
      { ...notice, target: { view: 'item' } },
      { ...notice, target: { view: 'runs', run: 1.5 } },
      { ...notice, extra: true },
    ];
    for (const n of bad) {
      expect(() => host.notify(n as HostNotice), JSON.stringify(n)).toThrow(expect.objectContaining({ code: 'INVALID_NOTICE', message: expect.stringMatching(/^A host notice is malformed at "[^"]+": ./) }));
    }
    expect(heard).toEqual([]);
  });
});

describe('host event frames', () => {
  it('reads back every signal and a notice as the event it was', () => {
    for (const signal of HOST_SIGNALS) expect(readHostEventFrame(JSON.parse(JSON.stringify(hostEventFrame(signal))))).toBe(signal);
    const frame = JSON.parse(JSON.stringify(hostEventFrame({ event: 'notice', notice })));
    expect(frame).toEqual({ event: 'notice', notice });
    expect(readHostEventFrame(frame)).toEqual({ event: 'notice', notice });
  });

  it('reads anything else as nothing', () => {
    for (const frame of [null, 'lanes-changed', {}, { event: 'reboot' }, { event: 'notice' }, { event: 'notice', notice: { kind: 'nope' } }, { event: 7 }]) {
      expect(readHostEventFrame(frame), JSON.stringify(frame)).toBeNull();
    }
  });
});

describe('targetHash', () => {
  it('names each view, with its id escaped', () => {
    expect(targetHash({ view: 'runs', run: 12 })).toBe('#/runs/12');
    expect(targetHash({ view: 'runs' })).toBe('#/runs');
    expect(targetHash({ view: 'lanes', lane: 'gpu' })).toBe('#/lanes/gpu');
    expect(targetHash({ view: 'item', item: 'a/b c' })).toBe('#/item/a%2Fb%20c');
    expect(targetHash({ view: 'settings', key: 'spend.capUsd' })).toBe('#/settings/spend.capUsd');
    expect(targetHash({ view: 'library' })).toBe('#/library');
  });
});
