// Every knob Backlot has, declared once: type, default, validation, whether it applies live or
// after a restart, and one line for the UI. The store, the CLI and the settings page all read this.
import { z } from 'zod';
import { CATALOG, OPERATION_IDS, type OperationId } from '../catalog/operations';
import { LANE_KEYS, LANES, type LaneKey } from '../catalog/lanes';
import { quietWindowSchema, type QuietWindow } from '../schedule/quiet-window';
import { NOTICE_KINDS, type NoticeKind } from '../notices/notice';

export type SettingApplies = 'live' | 'restart';
/** How a typed-in text becomes a value (CLI, plain text fields); zod still has the last word. */
export type SettingInput = 'integer' | 'number' | 'nullable-number' | 'enum' | 'boolean' | 'json' | 'list';

export interface SettingSpec<S extends z.ZodType = z.ZodType> {
  schema: S;
  default: z.infer<S>;
  applies: SettingApplies;
  input: SettingInput;
  description: string;
}

/** The lanes' queue keys; a test keeps this list equal to the catalog's. */
export { LANE_KEYS, type LaneKey } from '../catalog/lanes';

export const SPEND_WINDOWS = ['day', 'week', 'month'] as const;
export type SpendWindow = (typeof SPEND_WINDOWS)[number];

const spec = <S extends z.ZodType>(s: SettingSpec<S>): SettingSpec<S> => s;

const count = (min: number, max?: number) => {
  const base = z.number({ error: 'must be a number' }).int({ error: 'must be a whole number' })
    .min(min, { error: `must be at least ${min}` });
  return max === undefined ? base : base.max(max, { error: `must be at most ${max}` });
};

export const quietWindow = quietWindowSchema(z.enum(LANE_KEYS, { error: `must name a lane: ${LANE_KEYS.join(', ')}` }));
export type { QuietWindow };

const slots = (lane: LaneKey) => spec({
  schema: count(0, 64), default: LANES.find((l) => l.queueKey === lane)!.defaultSlots, applies: 'live', input: 'integer',
  description: `Concurrent slots of the ${lane} lane; 0 holds the lane without ending it.`,
});

/**
 * `engines.<operation>`: which of the catalog's engines perform it, in order of preference on a lane
 * (docs/architecture.md "Engines"). Every one is enabled by default; one that cannot run here fails
 * its preflight and says why, and the others carry the work.
 */
const engineList = <O extends OperationId>(op: O) => {
  const ids = CATALOG.find((o) => o.id === op)!.engines.map((e) => e.id) as [string, ...string[]];
  return spec({
    schema: z.array(z.enum(ids, { error: `must name engines of ${op}: ${ids.join(', ')}` }), { error: `must be a list of engines of ${op}: ${ids.join(', ')}` })
      .refine((l) => new Set(l).size === l.length, { error: 'must not name an engine twice' }),
    default: [...ids] as string[], applies: 'live', input: 'list',
    description: `Engines that perform ${op}, in order of preference: any of ${ids.join(', ')}.`,
  });
};

export function engineSettingKey(op: OperationId): `engines.${OperationId}` {
  return `engines.${op}`;
}

const flag = (def: boolean, description: string) => spec({
  schema: z.boolean({ error: 'must be true or false' }), default: def, applies: 'live', input: 'boolean', description,
});

/** One sentence per notice kind for its off switch (the kinds are src-shared/notices/notice.ts). */
const NOTICE_SWITCH_TEXT: Record<NoticeKind, string> = {
  'run-failed': 'a piece of work failed after its last retry',
  'disk-gate-shut': 'the disk gate shut because free space ran low',
  'disk-full': 'nothing can be written because the disk is full',
  'cooldown-opened': 'a platform refused Backlot and its network lanes wait',
  'preflight-failed': "a lane cannot start because its engines' preflight failed",
  'spend-cap-reached': 'remote work stopped at the spend cap',
  'backlog-finished': "an operation's backlog ran out",
};

/** The desktop shell's knobs (docs/desktop.md): the tray, login and one off switch per notice kind. */
const DESKTOP_SETTINGS = {
  'desktop.closeToTray': flag(true, 'Closing the window keeps Backlot working in the tray; false quits instead.'),
  'desktop.openAtLogin': flag(false, 'Start Backlot in the tray when you log in.'),
  ...Object.fromEntries(NOTICE_KINDS.map((kind) => [
    `notifications.${kind}`, flag(true, `Show a desktop notification when ${NOTICE_SWITCH_TEXT[kind]}.`),
  ])) as { [K in NoticeKind as `notifications.${K}`]: SettingSpec<z.ZodBoolean> },
};

/** The setting that turns a notice kind's OS notifications on or off. */
export function noticeSettingKey(kind: NoticeKind): `notifications.${NoticeKind}` {
  return `notifications.${kind}`;
}

/** Choices for the pocketsphinx decoder (docs/transcription.md "pocketsphinx"); auto takes the best one present. */
export const POCKETSPHINX_DECODERS = ['auto', 'wheel-decoder', 'debian-decoder-wheel-model', 'debian-decoder'] as const;
export type PocketsphinxDecoder = (typeof POCKETSPHINX_DECODERS)[number];

/** The transcription engines' knobs (docs/transcription.md); each one is part of its engine's fingerprint. */
const TRANSCRIBE_SETTINGS = {
  'transcribe.chunkS': spec({
    schema: count(5, 3600), default: 60, applies: 'live', input: 'integer',
    description: 'Seconds of media per transcription chunk; a checkpoint is kept after each, so an interrupted transcription resumes there.',
  }),
  'transcribe.pocketsphinxDecoder': spec({
    schema: z.enum(POCKETSPHINX_DECODERS, { error: `must be one of ${POCKETSPHINX_DECODERS.join(', ')}` }),
    default: 'auto' as PocketsphinxDecoder, applies: 'live', input: 'enum',
    description: 'Which pocketsphinx decoder runs: auto (the best one installed), wheel-decoder, debian-decoder-wheel-model or debian-decoder.',
  }),
  'transcribe.whisperModel': spec({
    schema: z.string({ error: 'must be a model id' }).regex(/^[a-z0-9][a-z0-9._-]{0,99}$/, { error: 'must be a model id (lower-case letters, digits, dots, dashes, underscores)' }),
    default: 'ggml-base.en', applies: 'live', input: 'enum',
    description: 'The installed model (backlot models list) whisper.cpp transcribes with.',
  }),
  'transcribe.language': spec({
    schema: z.string({ error: 'must be a language code' }).regex(/^(auto|[a-z]{2,3})$/, { error: 'must be auto or a two- or three-letter language code' }),
    default: 'en', applies: 'live', input: 'enum',
    description: "The spoken language for whisper.cpp (auto detects it); pocketsphinx's model is US English only.",
  }),
  'transcribe.cpuThreads': spec({
    schema: count(1, 64), default: 2, applies: 'live', input: 'integer',
    description: 'Threads one whisper.cpp job may use on the CPU.',
  }),
};

export const SETTINGS = {
  'engines.sync': engineList('sync'),
  'engines.download': engineList('download'),
  'engines.transcribe': engineList('transcribe'),
  'engines.diarize': engineList('diarize'),
  'engines.attribute-voices': engineList('attribute-voices'),
  'engines.attribute-words': engineList('attribute-words'),
  'engines.digest': engineList('digest'),
  'lanes.sync.slots': slots('sync'),
  'lanes.download.slots': slots('download'),
  'lanes.gpu.slots': slots('gpu'),
  'lanes.cpu.slots': slots('cpu'),
  'lanes.remote.slots': slots('remote'),
  'diskGate.drainingBelowBytes': spec({
    schema: count(0), default: 50e9, applies: 'live', input: 'integer',
    description: 'Below this many free bytes no new media download starts; running ones finish.',
  }),
  'diskGate.shutBelowBytes': spec({
    schema: count(0), default: 10e9, applies: 'live', input: 'integer',
    description: 'Below this many free bytes every media writer holds; must not exceed the draining threshold.',
  }),
  'retry.maxAttempts': spec({
    schema: count(1, 100), default: 3, applies: 'live', input: 'integer',
    description: 'Attempts before a failing item is deferred as failed until the user retries it.',
  }),
  'retry.baseS': spec({
    schema: count(1), default: 30, applies: 'live', input: 'integer',
    description: 'First backoff in seconds; each further attempt waits twice as long.',
  }),
  'retry.maxS': spec({
    schema: count(1), default: 900, applies: 'live', input: 'integer',
    description: 'Longest backoff in seconds; must not be below the base.',
  }),
  'retry.jitter': spec({
    schema: z.number({ error: 'must be a number' }).min(0, { error: 'must be at least 0' }).max(1, { error: 'must be at most 1' }),
    default: 0.1, applies: 'live', input: 'number',
    description: 'Random spread of each backoff, as a fraction of it (0 to 1).',
  }),
  quietHours: spec({
    schema: z.array(quietWindow, { error: 'must be a list of windows [{lane, from, to, days?}]' }),
    default: [] as z.infer<typeof quietWindow>[], applies: 'live', input: 'json',
    description: 'Windows of local time in which a lane holds, e.g. [{"lane":"download","from":"09:00","to":"17:00","days":[1,2,3,4,5]}].',
  }),
  'spend.capUsd': spec({
    schema: z.number({ error: 'must be a number of dollars or null' }).min(0, { error: 'must be at least 0' }).nullable(),
    default: null as number | null, applies: 'live', input: 'nullable-number',
    description: 'Most money remote engines may spend per spend window; null means no cap.',
  }),
  'spend.window': spec({
    schema: z.enum(SPEND_WINDOWS, { error: `must be one of ${SPEND_WINDOWS.join(', ')}` }),
    default: 'month' as SpendWindow, applies: 'live', input: 'enum',
    description: 'The period the spend cap counts over (UTC calendar day, ISO week or month).',
  }),
  'runs.retentionDays': spec({
    schema: count(1, 3650), default: 30, applies: 'live', input: 'integer',
    description: 'Days a finished run and its log lines are kept.',
  }),
  'sync.defaultIntervalS': spec({
    schema: count(60), default: 3600, applies: 'live', input: 'integer',
    description: 'Seconds between syncs of a channel that sets no interval of its own.',
  }),
  'claims.leaseS': spec({
    // Leases already handed out carry the old length, and workers renew on a cadence fixed at start.
    schema: count(5, 3600), default: 60, applies: 'restart', input: 'integer',
    description: 'Seconds a claim lives without renewal before a dead worker\'s item is free again.',
  }),
  'engines.stallTimeoutS': spec({
    schema: count(5), default: 120, applies: 'live', input: 'integer',
    description: 'Seconds an engine may go without reporting progress before it is killed as stalled.',
  }),
  ...DESKTOP_SETTINGS,
  ...TRANSCRIBE_SETTINGS,
} as const satisfies Record<string, SettingSpec>;

export type SettingKey = keyof typeof SETTINGS;
export type SettingValue<K extends SettingKey> = z.infer<(typeof SETTINGS)[K]['schema']>;
export type SettingsValues = { [K in SettingKey]: SettingValue<K> };
export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];

export function isSettingKey(key: unknown): key is SettingKey {
  return typeof key === 'string' && Object.prototype.hasOwnProperty.call(SETTINGS, key);
}

/** Rules across keys, checked on the values as they would be after a change. */
export interface CrossRule {
  keys: readonly SettingKey[];
  /** A sentence fragment describing the conflict, or null when the values agree. */
  check(v: SettingsValues): string | null;
}

export const CROSS_RULES: readonly CrossRule[] = [
  {
    keys: ['diskGate.shutBelowBytes', 'diskGate.drainingBelowBytes'],
    check: (v) => v['diskGate.shutBelowBytes'] <= v['diskGate.drainingBelowBytes'] ? null
      : `diskGate.shutBelowBytes (${v['diskGate.shutBelowBytes']}) must not exceed diskGate.drainingBelowBytes (${v['diskGate.drainingBelowBytes']})`,
  },
  {
    keys: ['retry.baseS', 'retry.maxS'],
    check: (v) => v['retry.baseS'] <= v['retry.maxS'] ? null
      : `retry.baseS (${v['retry.baseS']}) must not exceed retry.maxS (${v['retry.maxS']})`,
  },
];

export function defaultSettings(): SettingsValues {
  const out: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) out[key] = structuredClone(SETTINGS[key].default);
  return out as SettingsValues;
}

export type SettingIssueKind = 'wrong-type' | 'out-of-range' | 'invalid';

export type SettingCheck<K extends SettingKey> =
  | { ok: true; value: SettingValue<K> }
  | { ok: false; kind: SettingIssueKind; problem: string };

/** Validates one value; the problem is a fragment that reads after the key ("must be at least 0"). */
export function checkSetting<K extends SettingKey>(key: K, value: unknown): SettingCheck<K> {
  const r = SETTINGS[key].schema.safeParse(value);
  if (r.success) return { ok: true, value: r.data as SettingValue<K> };
  const issue = r.error.issues[0];
  const at = issue.path.length > 0 ? ` at ${formatPath(issue.path)}` : '';
  const kind: SettingIssueKind = issue.code === 'invalid_type' ? 'wrong-type'
    : issue.code === 'too_small' || issue.code === 'too_big' ? 'out-of-range' : 'invalid';
  const message = issue.code === 'unrecognized_keys' ? `has unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}` : issue.message;
  return { ok: false, kind, problem: `${message}${at}` };
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
}

export type ParsedInput = { ok: true; value: unknown } | { ok: false; problem: string };

/** Turns typed text into a candidate value by the key's input kind. */
export function parseSettingInput(key: SettingKey, text: string): ParsedInput {
  const t = text.trim();
  switch (SETTINGS[key].input) {
    case 'integer':
    case 'number':
      return numberFrom(t);
    case 'nullable-number':
      return t === 'null' || t === '' ? { ok: true, value: null } : numberFrom(t);
    case 'enum':
      return { ok: true, value: t };
    case 'list':
      return { ok: true, value: t === '' ? [] : t.split(',').map((x) => x.trim()).filter((x) => x !== '') };
    case 'boolean':
      return t === 'true' ? { ok: true, value: true } : t === 'false' ? { ok: true, value: false } : { ok: false, problem: 'must be true or false' };
    case 'json':
      try {
        return { ok: true, value: JSON.parse(t) as unknown };
      } catch {
        return { ok: false, problem: 'must be written as JSON' };
      }
  }
}

function numberFrom(t: string): ParsedInput {
  // Number('') is 0 and Number('0x10') is 16: accept only plain decimal notation.
  if (!/^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) return { ok: false, problem: 'must be a number' };
  return { ok: true, value: Number(t) };
}

// Every operation has its engines key: a new operation without one is a compile error here.
const ENGINE_KEYS: Record<`engines.${OperationId}`, true> = {
  'engines.sync': true, 'engines.download': true, 'engines.transcribe': true, 'engines.diarize': true,
  'engines.attribute-voices': true, 'engines.attribute-words': true, 'engines.digest': true,
};
export const ENGINE_SETTING_KEYS = OPERATION_IDS.map((op) => engineSettingKey(op)).filter((k) => ENGINE_KEYS[k]);
