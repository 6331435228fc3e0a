// The tray at a glance (docs/desktop.md, "Tray"): one state for the icon (idle, working, held,
// failed), a tooltip saying what runs now, and the menu. Computed from the lanes' statuses (the
// same ones the lane page reads) and the failures the user has not seen yet; pure, so every
// combination is unit-tested.
import type { LaneStatusDto } from '../../../src-shared/api/contract';
import type { NoticeKind } from '../../../src-shared/notices/notice';
import { ALL_LANES } from '../../gates/pause';
import type { MenuItemModel } from './menu-model';
import type { DesktopText, Formatters } from './text/desktop-text';

export const TRAY_STATES = ['idle', 'working', 'held', 'failed'] as const;
export type TrayState = (typeof TRAY_STATES)[number];


export interface TrayInput {
  lanes: readonly LaneStatusDto[];
  /** Whether "pause everything" is on (the "*" pause), apart from each lane's own pause. */
  everythingPaused: boolean;
  /** Failures (run failed, preflight failed, disk full) since the user last opened the window. */
  unseenFailures: number;
}

export interface TrayModel {
  state: TrayState;
  tooltip: string;
  menu: MenuItemModel[];
}

/** Holds that mean something is broken rather than waiting by design. */
const FAILURE_HOLDS = new Set(['PREFLIGHT_FAILED', 'DISK_FULL']);

/**
 * failed beats everything (it needs the user), then working (something runs, even if a lane is
 * held), then held (nothing runs and a lane is held or paused), else idle.
 */
export function trayState(input: TrayInput): TrayState {
  if (input.unseenFailures > 0 || input.lanes.some((l) => l.hold !== null && FAILURE_HOLDS.has(l.hold.code))) return 'failed';
  if (input.lanes.some((l) => l.running > 0)) return 'working';
  if (input.everythingPaused || input.lanes.some((l) => l.paused || l.hold !== null)) return 'held';
  return 'idle';
}

/** Whether a notice counts as a failure the tray shows until the user looks. */
export function isFailureNotice(kind: NoticeKind): boolean {
  switch (kind) {
    case 'run-failed':
    case 'preflight-failed':
    case 'disk-full':
      return true;
    case 'disk-gate-shut':
    case 'cooldown-opened':
    case 'spend-cap-reached':
    case 'backlog-finished':
      return false;
  }
}

export function trayModel(input: TrayInput, text: DesktopText, f: Formatters): TrayModel {
  const state = trayState(input);
  return { state, tooltip: tooltip(input, state, text), menu: trayMenu(input, text, f) };
}

function tooltip(input: TrayInput, state: TrayState, text: DesktopText): string {
  const lines = [`Backlot — ${text.trayState[state]}`];
  const running = input.lanes.filter((l) => l.running > 0);
  const total = running.reduce((sum, l) => sum + l.running, 0);
  lines.push(total > 0 ? text.tooltip.running(total, running.map((l) => `${text.laneLabel(l.lane)} ${l.running}`).join(', ')) : text.tooltip.nothingRunning);
  const held = input.lanes.filter((l) => l.hold !== null).length;
  if (held > 0) lines.push(text.tooltip.held(held));
  if (input.unseenFailures > 0) lines.push(text.tooltip.failures(input.unseenFailures));
  return lines.join('\n');
}

function trayMenu(input: TrayInput, text: DesktopText, f: Formatters): MenuItemModel[] {
  const laneItems: MenuItemModel[] = input.lanes.map((l) => {
    // A lane paused only through "pause everything" resumes with everything, not on its own.
    const ownPause = l.paused && !(input.everythingPaused && l.hold?.params.all === true);
    return ownPause
      ? { type: 'command', label: text.tray.resumeLane(text.laneLabel(l.lane)), command: { kind: 'set-paused', lane: l.lane, paused: false } }
      : {
          type: 'command',
          label: text.tray.pauseLane(text.laneLabel(l.lane), l.running > 0 ? text.tray.laneRunning(l.running) : text.tray.laneIdle),
          command: { kind: 'set-paused', lane: l.lane, paused: true },
          enabled: !input.everythingPaused,
        };
  });
  const holds = input.lanes.filter((l) => l.hold !== null);
  const holdItems: MenuItemModel[] = holds.length === 0
    ? [{ type: 'text', label: text.tray.noHolds }]
    : holds.map((l) => ({ type: 'text', label: `${capitalise(text.laneLabel(l.lane))}: ${text.hold(l.hold!, f)}` }));
  return [
    { type: 'command', label: text.tray.open, command: { kind: 'open-window' } },
    { type: 'separator' },
    input.everythingPaused
      ? { type: 'command', label: text.tray.resumeAll, command: { kind: 'set-paused', lane: ALL_LANES, paused: false } }
      : { type: 'command', label: text.tray.pauseAll, command: { kind: 'set-paused', lane: ALL_LANES, paused: true } },
    { type: 'submenu', label: text.tray.lanes, items: laneItems },
    { type: 'separator' },
    { type: 'text', label: text.tray.holds },
    ...holdItems,
    { type: 'separator' },
    { type: 'command', label: text.tray.quit, command: { kind: 'quit' } },
  ];
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
