// Notices and lane statuses as the host produces them, for the desktop shell's unit tests.
import type { LaneStatusDto } from '../../src-shared/api/contract';
import type { HostNotice, NoticeKind } from '../../src-shared/notices/notice';

export function notice(kind: NoticeKind, params: Record<string, unknown> = {}, at = 1000, target: HostNotice['target'] = { view: 'runs' }): HostNotice {
  return { kind, at, code: kind.toUpperCase().replace(/-/g, '_'), params, target };
}

export function lane(name: string, change: Partial<LaneStatusDto> = {}): LaneStatusDto {
  return { lane: name, slots: 2, running: 0, paused: false, hold: null, ...change };
}
