// The tray model: the icon's state at a glance, the tooltip saying what runs, and the menu (open,
// pause/resume everything and each lane, the holds in words, quit).
import { describe, expect, it } from 'vitest';
import { trayModel, trayState, isFailureNotice, TRAY_STATES, type TrayInput } from '../../src-main/shells/electron/tray-model';
import type { MenuItemModel } from '../../src-main/shells/electron/menu-model';
import { DESKTOP_TEXT, formattersFor } from '../../src-main/shells/electron/text/index';
import { NOTICE_KINDS } from '../../src-shared/notices/notice';
import { lane } from './fixtures';

const input = (change: Partial<TrayInput> = {}): TrayInput => ({
  lanes: [lane('sync'), lane('download'), lane('gpu')], everythingPaused: false, unseenFailures: 0, ...change,
});
const en = DESKTOP_TEXT.en;
const f = formattersFor('en', 'UTC');
const labels = (items: MenuItemModel[]): string[] => items.flatMap((i) => (i.type === 'separator' ? ['—'] : i.type === 'submenu' ? [i.label, ...labels(i.items).map((l) => `  ${l}`)] : [i.label]));

describe('trayState', () => {
  it('is idle with nothing running and nothing held', () => {
    expect(trayState(input())).toBe('idle');
  });

  it('is working while anything runs, even with another lane held', () => {
    expect(trayState(input({ lanes: [lane('download', { running: 1 }), lane('gpu', { paused: true, hold: { code: 'LANE_PAUSED', params: { lane: 'gpu' } } })] }))).toBe('working');
  });

  it('is held when nothing runs and a lane is paused or gated, or everything is paused', () => {
    expect(trayState(input({ lanes: [lane('download', { hold: { code: 'DISK_GATE', params: { mode: 'shut' } } })] }))).toBe('held');
    expect(trayState(input({ lanes: [lane('gpu', { paused: true })] }))).toBe('held');
    expect(trayState(input({ everythingPaused: true }))).toBe('held');
  });

  it('is failed when a failure is unseen or a lane cannot start, whatever else runs', () => {
    expect(trayState(input({ unseenFailures: 1, lanes: [lane('cpu', { running: 2 })] }))).toBe('failed');
    expect(trayState(input({ lanes: [lane('gpu', { hold: { code: 'PREFLIGHT_FAILED', params: { code: 'NO_USABLE_GPU' } } })] }))).toBe('failed');
    expect(trayState(input({ lanes: [lane('cpu', { hold: { code: 'DISK_FULL', params: {} } })] }))).toBe('failed');
  });

  it('knows which notices are failures the user must see', () => {
    expect(NOTICE_KINDS.filter(isFailureNotice)).toEqual(['run-failed', 'disk-full', 'preflight-failed']);
    expect(TRAY_STATES).toEqual(['idle', 'working', 'held', 'failed']);
  });
});

describe('trayModel', () => {
  it('says in the tooltip what runs now, what is held and what failed', () => {
    const model = trayModel(input({
      lanes: [lane('download', { running: 2 }), lane('gpu', { running: 1 }), lane('remote', { hold: { code: 'SPEND_CAP', params: { capUsd: 5 } } })],
      unseenFailures: 3,
    }), en, f);
    expect(model.tooltip).toBe('Backlot — Something failed\n3 running: download 2, GPU 1\n1 lane is held.\n3 failures since you last looked.');
    expect(trayModel(input(), en, f).tooltip).toBe('Backlot — Idle\nNothing is running.');
  });

  it('offers open, pause everything, each lane, the holds in words, and quit', () => {
    const model = trayModel(input({
      lanes: [
        lane('sync'),
        lane('download', { running: 1, hold: { code: 'DISK_GATE', params: { mode: 'draining' } } }),
        lane('gpu', { paused: true, hold: { code: 'LANE_PAUSED', params: { lane: 'gpu' } } }),
      ],
    }), en, f);
    expect(labels(model.menu)).toEqual([
      'Open Backlot', '—', 'Pause everything', 'Lanes',
      '  Pause sync — idle', '  Pause download — 1 running', '  Resume GPU — paused',
      '—', 'Holds', 'Download: disk space is low: no new downloads start', 'GPU: paused', '—', 'Quit Backlot',
    ]);
    const commands = model.menu.flatMap((i) => (i.type === 'submenu' ? i.items : [i])).flatMap((i) => (i.type === 'command' ? [i.command] : []));
    expect(commands).toEqual([
      { kind: 'open-window' },
      { kind: 'set-paused', lane: '*', paused: true },
      { kind: 'set-paused', lane: 'sync', paused: true },
      { kind: 'set-paused', lane: 'download', paused: true },
      { kind: 'set-paused', lane: 'gpu', paused: false },
      { kind: 'quit' },
    ]);
  });

  it('with everything paused offers resume everything; a lane held only by that cannot be paused or resumed alone', () => {
    const heldByAll = { code: 'LANE_PAUSED', params: { lane: 'sync', all: true } };
    const model = trayModel(input({
      everythingPaused: true,
      lanes: [lane('sync', { paused: true, hold: heldByAll }), lane('gpu', { paused: true, hold: { code: 'LANE_PAUSED', params: { lane: 'gpu' } } })],
    }), en, f);
    const top = model.menu.find((i) => i.type === 'command' && i.command.kind === 'set-paused');
    expect(top).toMatchObject({ label: 'Resume everything', command: { lane: '*', paused: false } });
    const lanes = model.menu.find((i) => i.type === 'submenu');
    expect(lanes?.type === 'submenu' && lanes.items).toEqual([
      { type: 'command', label: 'Pause sync — idle', command: { kind: 'set-paused', lane: 'sync', paused: true }, enabled: false },
      // Its own pause stays under "everything": resuming it alone lifts only its own.
      { type: 'command', label: 'Resume GPU — paused', command: { kind: 'set-paused', lane: 'gpu', paused: false } },
    ]);
    expect(labels(model.menu)).toContain('Sync: paused with everything else');
  });

  it('says so when nothing holds the lanes, and speaks Hungarian', () => {
    expect(labels(trayModel(input(), en, f).menu)).toContain('Nothing holds the lanes');
    const hu = trayModel(input({ lanes: [lane('download', { hold: { code: 'DISK_GATE', params: { mode: 'shut' } } })] }), DESKTOP_TEXT.hu, formattersFor('hu', 'UTC'));
    expect(hu.tooltip.split('\n')[0]).toBe('Backlot — Visszatartva');
    expect(labels(hu.menu)).toEqual(expect.arrayContaining(['Backlot megnyitása', 'Minden szüneteltetése', '  Letöltés szüneteltetése — tétlen', 'Letöltés: majdnem megtelt a lemez: a letöltések leálltak', 'Kilépés a Backlotból']));
  });

  it('names an unknown hold by its code rather than hiding it', () => {
    const model = trayModel(input({ lanes: [lane('sync', { hold: { code: 'SOMETHING_NEW', params: {} } })] }), en, f);
    expect(labels(model.menu)).toContain('Sync: held (SOMETHING_NEW)');
  });
});
