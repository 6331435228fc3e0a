// Every knob Backlot has, declared once: type, default, validation, whether it applies live or
// after a restart, and one line for the UI. The store, the CLI and the settings page all read this.
import { z } from 'zod';
import { CATALOG, OPERATION_IDS, type OperationId } from '../catalog/operations';
import { LANE_KEYS, LANES, isLaneKey, type LaneKey } from '../catalog/lanes';
import { laneNameProblem } from '../catalog/pool-lanes';
import { quietWindowSchema, type QuietWindow } from '../schedule/quiet-window';
import { NOTICE_KINDS, type NoticeKind } from '../notices/notice';
import { ACQUISITION_CROSS_RULES, ACQUISITION_SETTINGS } from './acquisition-settings';
import { POOL_SETTINGS } from './pool-settings';
import { DEFAULT_MODELS_BASE_URL } from '../models/model-catalog';
import { POCKETSPHINX_DECODERS, TRANSCRIBE_PROMPT_MAX, type PocketsphinxDecoder } from './transcribe-choices';

export type SettingApplies = 'live' | 'restart';
/** How a typed-in text becomes a value (CLI, plain text fields); zod still has the last word. */
export type SettingInput = 'integer' | 'number' | 'nullable-number' | 'enum' | 'boolean' | 'json' | 'list' | 'text' | 'secret';

export interface SettingSpec<S extends z.ZodType = z.ZodType> {
  schema: S;
  default: z.infer<S>;
  applies: SettingApplies;
  input: SettingInput;
  description: string;
  /**
   * Write-only (an API key): the value lives in the secret store (src-main/settings/secret-store.ts),
   * never in the database, a log or an answer; reading it gives only SECRET_SET or SECRET_UNSET.
   */
  secret?: true;
}

/** What a secret setting reads as: whether it is set, never its value. */
export const SECRET_SET = '(set)';
export const SECRET_UNSET = '';

/** The lanes' queue keys; a test keeps this list equal to the catalog's. */
export { LANE_KEYS, type LaneKey } from '../catalog/lanes';

export const SPEND_WINDOWS = ['day', 'week', 'month'] as const;
export type SpendWindow = (typeof SPEND_WINDOWS)[number];
/** Engines' CPU priority against the host's (docs/architecture.md "Engines at low priority"). */
export const ENGINE_PRIORITIES = ['low', 'normal'] as const;
export type EnginePriority = (typeof ENGINE_PRIORITIES)[number];

const spec = <S extends z.ZodType>(s: SettingSpec<S>): SettingSpec<S> => s;

const count = (min: number, max?: number) => {
  const base = z.number({ error: 'must be a number' }).int({ error: 'must be a whole number' })
    .min(min, { error: `must be at least ${min}` });
  return max === undefined ? base : base.max(max, { error: `must be at most ${max}` });
};

// A window may also name a pool lane (`gpu@studio`) or every pool's lane of a base (`gpu@*`);
// `gpu` stays the local lane (docs/pools.md "Pool lanes in the tree").
const quietLane = z.string({ error: `must name a lane: ${LANE_KEYS.join(', ')}` })
  .refine((l) => (isLaneKey(l) || (l.includes('@') && laneNameProblem(l, LANE_KEYS) === null)), {
    error: (issue) => (typeof issue.input === 'string' && issue.input.includes('@') ? laneNameProblem(issue.input, LANE_KEYS) ?? '' : `must name a lane: ${LANE_KEYS.join(', ')}, or a pool lane like "gpu@studio"`),
  });
export const quietWindow = quietWindowSchema(quietLane);
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
const engineList = <O extends OperationId>(op: O, defaults?: readonly string[], note = '') => {
  const ids = CATALOG.find((o) => o.id === op)!.engines.map((e) => e.id) as [string, ...string[]];
  return spec({
    schema: z.array(z.enum(ids, { error: `must name engines of ${op}: ${ids.join(', ')}` }), { error: `must be a list of engines of ${op}: ${ids.join(', ')}` })
      .refine((l) => new Set(l).size === l.length, { error: 'must not name an engine twice' }),
    default: [...(defaults ?? ids)] as string[], applies: 'live', input: 'list',
    description: `Engines that perform ${op}, in order of preference: any of ${ids.join(', ')}.${note}`,
  });
};

export function engineSettingKey(op: OperationId): `engines.${OperationId}` {
  return `engines.${op}`;
}

const flag = (def: boolean, description: string) => spec({
  schema: z.boolean({ error: 'must be true or false' }), default: def, applies: 'live', input: 'boolean', description,
});

const text = (def: string, description: string, schema: z.ZodType<string> = z.string({ error: 'must be text' }).max(2048, { error: 'must be at most 2048 characters' })) => spec({
  schema, default: def, applies: 'live', input: 'text', description,
});

const price = (what: string) => spec({
  schema: z.number({ error: 'must be a number of dollars' }).min(0, { error: 'must be at least 0' }).max(10_000, { error: 'must be at most 10000' }),
  default: 0, applies: 'live', input: 'number',
  description: `US dollars per million ${what} tokens of the remote digest model (0: free, e.g. a local server).`,
});

/** An http(s) URL, or empty for "not configured". */
const baseUrl = z.string({ error: 'must be a URL' }).max(2048, { error: 'must be at most 2048 characters' }).refine((v) => {
  if (v === '') return true;
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.username === '' && u.password === '';
  } catch {
    return false;
  }
}, { error: 'must be an http:// or https:// URL without credentials in it (e.g. https://api.example.com/v1), or empty' });

/** The digest engines' knobs (docs/digests.md "Settings"). */
const DIGEST_SETTINGS = {
  'digest.remote.baseUrl': text('', 'Base URL of an OpenAI-compatible API (the part before /chat/completions), e.g. https://api.openai.com/v1; empty: not configured.', baseUrl),
  'digest.remote.model': text('', 'Model name the remote digest asks for (e.g. gpt-4o-mini); empty: not configured.'),
  'digest.remote.apiKey': spec({
    // "" is "not set" (writing it removes the key).
    schema: z.string({ error: 'must be text' }).max(4096, { error: 'must be at most 4096 characters' })
      .refine((v) => ![...v].some((c) => c.charCodeAt(0) < 0x20 || /\s/.test(c)), { error: 'must not contain spaces or control characters' }),
    default: SECRET_UNSET, applies: 'live', input: 'secret', secret: true,
    description: 'API key of the remote digest endpoint; write-only: stored protected, never shown (set it to "" to remove it).',
  }),
  'digest.remote.usdPerMillionInput': price('input'),
  'digest.remote.usdPerMillionOutput': price('output'),
  'digest.remote.contextTokens': spec({
    schema: count(1024, 2_000_000), default: 8192, applies: 'live', input: 'integer',
    description: 'Context window of the remote model in tokens; longer transcripts are digested in parts, then combined (map-reduce).',
  }),
  'digest.remote.maxOutputTokens': spec({
    schema: count(64, 32_768), default: 800, applies: 'live', input: 'integer',
    description: 'Most tokens the remote model may answer with per request (its max_tokens).',
  }),
  'digest.remote.stream': flag(true, 'Ask the remote model to stream its answers (server-sent events), for live progress; false for servers that cannot.'),
  'digest.remote.requestTimeoutS': spec({
    schema: count(1, 3600), default: 300, applies: 'live', input: 'integer',
    description: 'Seconds one request to the remote model may take before it counts as timed out.',
  }),
  'digest.summarySentences': spec({
    schema: count(1, 50), default: 5, applies: 'live', input: 'integer',
    description: 'Sentences in an item digest\'s summary.',
  }),
  'digest.moments': spec({
    schema: count(1, 100), default: 8, applies: 'live', input: 'integer',
    description: 'Key moments an item digest keeps (each with its speaker and start time).',
  }),
  'digest.channel.period': spec({
    schema: z.enum(SPEND_WINDOWS, { error: `must be one of ${SPEND_WINDOWS.join(', ')}` }),
    default: 'week' as SpendWindow, applies: 'live', input: 'enum',
    description: 'The period a channel digest rolls up (UTC day, ISO week or month): what the channel\'s items published in it said.',
  }),
  'digest.llama.model': text('', 'GGUF file under <data>/models the local LLM digest uses; empty: the first .gguf file there.'),
};

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

/**
 * How SRT and VTT exports cut a transcript into cues (docs/transcripts.md "Subtitles"). They shape
 * an export, not an engine's output, so changing them makes nothing stale.
 */
const SUBTITLE_SETTINGS = {
  'subtitles.maxLineChars': spec({
    schema: count(16, 120), default: 42, applies: 'live', input: 'integer',
    description: 'Most characters on one subtitle line (SRT and VTT exports); a longer segment is split into cues.',
  }),
  'subtitles.maxLines': spec({
    schema: count(1, 4), default: 2, applies: 'live', input: 'integer',
    description: 'Most lines in one subtitle cue (SRT and VTT exports).',
  }),
  'subtitles.maxCueS': spec({
    schema: count(1, 30), default: 7, applies: 'live', input: 'integer',
    description: 'Longest time in seconds one subtitle cue stays on screen; a longer stretch of speech is split.',
  }),
};

/** The setting that turns a notice kind's OS notifications on or off. */
export function noticeSettingKey(kind: NoticeKind): `notifications.${NoticeKind}` {
  return `notifications.${kind}`;
}

// The pocketsphinx decoder's choices and the prompt's longest length live zod-free beside this file.
export { POCKETSPHINX_DECODERS, TRANSCRIBE_PROMPT_MAX, type PocketsphinxDecoder };

/** Whose transcript an item gets (docs/transcripts.md "The publisher's transcript"). */
export const TRANSCRIPT_SOURCES = ['prefer-source', 'local-only', 'both'] as const;
export type TranscriptSourceChoice = (typeof TRANSCRIPT_SOURCES)[number];

/** The transcription engines' knobs (docs/transcription.md); each one is part of its engine's fingerprint. */
const TRANSCRIBE_SETTINGS = {
  'transcribe.prompt': text('',
    "Names and terms whisper.cpp is given as its initial prompt, so it spells them right (a channel can set its own: backlot settings set transcribe.prompt TEXT --channel ID); empty: none.",
    z.string({ error: 'must be text' }).max(TRANSCRIBE_PROMPT_MAX, { error: `must be at most ${TRANSCRIBE_PROMPT_MAX} characters` })
      // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
      .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), { error: 'must be one line of text without control characters' })),
  'transcribe.chunkS': spec({
    schema: count(5, 3600), default: 60, applies: 'live', input: 'integer',
    description: 'Seconds of media per transcription chunk; a checkpoint is kept after each, so an interrupted transcription resumes there.',
  }),
  'transcribe.pocketsphinxDecoder': spec({
    schema: z.enum(POCKETSPHINX_DECODERS, { error: `must be one of ${POCKETSPHINX_DECODERS.join(', ')}` }),
    default: 'auto' as PocketsphinxDecoder, applies: 'live', input: 'enum',
    description: 'Which pocketsphinx decoder runs: auto (the best one installed), wheel-decoder, debian-decoder-wheel-model or debian-decoder.',
  }),
  'models.baseUrl': text(DEFAULT_MODELS_BASE_URL,
    'Where `backlot models add NAME` downloads catalog models from: the upstream host, or a mirror serving the same paths (docs/models.md "Mirrors").',
    baseUrl.refine((v) => v !== '', { error: 'must be an http:// or https:// URL (the default is https://huggingface.co)' })),
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
  'transcripts.source': spec({
    schema: z.enum(TRANSCRIPT_SOURCES, { error: `must be one of ${TRANSCRIPT_SOURCES.join(', ')}` }),
    default: 'prefer-source' as TranscriptSourceChoice, applies: 'live', input: 'enum',
    description: "Whose transcript an item gets: prefer-source (the publisher's or the platform's own when it offers one, a local engine otherwise), local-only, or both (the source's is the item's transcript, a local one is kept beside it). A channel may set its own.",
  }),
  'transcripts.autoCaptions': flag(false, "Use a platform's automatic captions when it has no subtitles made by a person (platform items; a channel may set its own)."),
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
  // Only the free local engine by default: an unconfigured remote API is not a failing lane until asked for.
  'engines.digest': engineList('digest', ['extractive'], ' Default: extractive only; add openai-compatible or llama-cpp to use them.'),
  'engines.channel-digest': engineList('channel-digest'),
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
  'diskFull.resumeAboveBytes': spec({
    schema: count(0), default: 32 * 1024 * 1024, applies: 'live', input: 'integer',
    description: 'After the disk filled up, work resumes once the library volume has more than this many free bytes.',
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
  'engines.priority': spec({
    schema: z.enum(ENGINE_PRIORITIES, { error: `must be one of ${ENGINE_PRIORITIES.join(', ')}` }),
    default: 'low' as EnginePriority, applies: 'live', input: 'enum',
    description: 'CPU priority of engine processes: low (the default) keeps the window and the host quick while engines fill every core, and lets any busier program go first (the lane page then says "waiting for CPU"); normal lets them compete with the rest of the machine as equals (switched back to normal, running engines stay low until they end).',
  }),
  // Speakers (docs/speakers.md): the thresholds measured on the pocketsphinx-testdata voices.
  'speakers.diarizeThreshold': spec({
    schema: z.number({ error: 'must be a number' }).gt(0, { error: 'must be above 0' }).lt(2, { error: 'must be below 2' }),
    default: 0.65, applies: 'live', input: 'number',
    description: 'Cosine distance above which diarization keeps two groups of speech apart as different speakers (lower: more speakers).',
  }),
  'speakers.matchThreshold': spec({
    schema: z.number({ error: 'must be a number' }).gt(0, { error: 'must be above 0' }).max(1, { error: 'must be at most 1' }),
    default: 0.5, applies: 'live', input: 'number',
    description: 'Cosine similarity at or above which a diarized voice is matched to an existing speaker profile (higher: more new profiles).',
  }),
  ...DIGEST_SETTINGS,
  ...DESKTOP_SETTINGS,
  ...ACQUISITION_SETTINGS,
  ...SUBTITLE_SETTINGS,
  ...TRANSCRIBE_SETTINGS,
  ...POOL_SETTINGS,
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
  ...ACQUISITION_CROSS_RULES,
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
    case 'text':
      return { ok: true, value: t };
    case 'secret':
      // An empty secret removes it; the store decides, so no value is echoed back from here.
      return { ok: true, value: t };
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
  'engines.channel-digest': true,
};

/** Keys whose value is write-only (isSecretSetting): the settings store keeps them out of the database. */
export function isSecretSetting(key: SettingKey): boolean {
  return (SETTINGS[key] as SettingSpec).secret === true;
}
export const ENGINE_SETTING_KEYS = OPERATION_IDS.map((op) => engineSettingKey(op)).filter((k) => ENGINE_KEYS[k]);
