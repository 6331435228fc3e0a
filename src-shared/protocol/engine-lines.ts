// The line protocol between the host and an engine process (DESIGN §7), shared so the runner,
// the engines and the tests agree on one shape. Pure data: no node imports, nothing here throws.
import { z } from 'zod';
import { LOG_KEY_PATTERN } from '../runs/log-keys';

/**
 * Conversation: the host writes ONE `job` line on the engine's stdin and keeps stdin open for the
 * life of the job; stdin reaching EOF means the host is gone, so an engine stops and exits. The
 * engine writes `progress` and `log` lines on stdout (each one proves it is alive), then exactly
 * one `result` or `error`, then exits 0. stderr is free text, kept only as a diagnostic.
 * Output paths in a result are relative to the job's `outputDir` (absolute ones must lie inside it).
 */
export interface EngineJob {
  type: 'job';
  jobId: string;
  operation: string;
  input: Record<string, unknown>;
  /** A temporary directory the engine writes into; the host commits from there (commit-output). */
  outputDir: string;
  /**
   * A long-lived worker (docs/architecture.md "Workers"): after its answer the engine waits for the
   * next job line instead of exiting. Absent or false: answer, then exit 0.
   */
  keepAlive?: boolean;
}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * A progress line: the ratio; the English text of its message; a key and its params when the message
 * is one the window can say in the reader's language (src-shared/runs/progress-keys.ts). A key comes
 * with its text, so an older host or a key the window does not know still shows the text.
 */
export interface ProgressLine { type: 'progress'; ratio: number; message?: string; key?: string; params?: Record<string, unknown> }
/**
 * A log line: the English text always; a key and its params when the line is one the window can
 * say in the reader's language (src-shared/runs/log-keys.ts). A key the host does not know is kept
 * and the window shows the text (docs/i18n.md "Log lines").
 */
export interface LogLine { type: 'log'; level: LogLevel; text: string; key?: string; params?: Record<string, unknown> }
export interface EngineOutput { name: string; path: string; bytes: number }
export interface ResultLine { type: 'result'; outputs: EngineOutput[]; metadata: Record<string, unknown> }
export interface ErrorLine {
  type: 'error';
  code: string;
  params: Record<string, unknown>;
  /** An upstream's raw text (yt-dlp's stderr line, an HTTP body): for diagnosis, never shown as the reason. */
  diagnostic?: string;
}
export type EngineLine = ProgressLine | LogLine | ResultLine | ErrorLine;

// The runner's own reason codes live zod-free in engine-reason-codes.ts (the window reads them).
import { ENGINE_REASON_CODES, type EngineReasonCode } from './engine-reason-codes';

export { ENGINE_REASON_CODES, type EngineReasonCode };

const SENTENCES: Record<EngineReasonCode, string> = {
  ENGINE_TIMEOUT: 'The engine ran past its time limit and was stopped.',
  ENGINE_STALLED: 'The engine stopped reporting progress and was stopped.',
  ENGINE_CANCELLED: 'The run was cancelled.',
  ENGINE_CRASHED: 'The engine crashed.',
  ENGINE_EXIT: 'The engine exited with an error status.',
  ENGINE_PROTOCOL: 'The engine sent something that is not part of the protocol.',
  ENGINE_NO_RESULT: 'The engine finished without reporting a result.',
  ENGINE_OUTPUT_INVALID: 'The engine reported an output file that is missing or incomplete.',
  ENGINE_SPAWN: 'The engine program could not be started.',
};

/** One sentence for the shells (CLI, logs); the UI translates the code itself. */
export function engineReasonSentence(code: string): string {
  return (SENTENCES as Record<string, string>)[code] ?? `The engine reported ${code}.`;
}

// Framing, the protocol error and the job-line check live zod-free in line-codec.ts: an engine
// process loads only that (docs/benchmarks.md "The command line", session 7).
import { MAX_LINE_CHARS, encodeLine, isRecord, parseJobLine, parseObject, violation, type ParsedLine, type ProtocolError, type ProtocolViolation } from './line-codec';

export { MAX_LINE_CHARS, encodeLine, parseJobLine, type ParsedLine, type ProtocolError, type ProtocolViolation };

const REASON_CODE = /^[A-Z][A-Z0-9_]*$/;

const record = z.record(z.string(), z.unknown());
const schemas = {
  progress: z.object({
    type: z.literal('progress'),
    ratio: z.number().min(0).max(1),
    message: z.string().optional(),
    key: z.string().regex(LOG_KEY_PATTERN).max(100).optional(),
    params: record.optional(),
  }).refine((l) => l.key === undefined || l.message !== undefined, { path: ['message'] }),
  log: z.object({ type: z.literal('log'), level: z.enum(LOG_LEVELS), text: z.string(), key: z.string().regex(LOG_KEY_PATTERN).max(100).optional(), params: record.optional() }),
  result: z.object({
    type: z.literal('result'),
    outputs: z.array(z.object({
      name: z.string().min(1),
      path: z.string().min(1),
      bytes: z.number().int().nonnegative(),
    })),
    metadata: record.default({}),
  }),
  error: z.object({
    type: z.literal('error'),
    code: z.string().regex(REASON_CODE),
    params: record.default({}),
    diagnostic: z.string().optional(),
  }),
};

/** Parse one stdout line of an engine. Never throws: garbage becomes a typed ProtocolError. */
export function parseEngineLine(line: string): ParsedLine<EngineLine> {
  return parseLine(line, true);
}

/** The schemas alone, without the quick checks: what the test holds the quick checks to. */
export function parseEngineLineWithSchemas(line: string): ParsedLine<EngineLine> {
  return parseLine(line, false);
}

function parseLine(line: string, quick: boolean): ParsedLine<EngineLine> {
  const parsed = parseObject(line);
  if (!parsed.ok) return parsed;
  const type = parsed.message.type;
  if (type === 'job') return violation(line, 'unexpected-job', { type });
  if (type !== 'progress' && type !== 'log' && type !== 'result' && type !== 'error') {
    return violation(line, 'unknown-type', typeof type === 'string' ? { type } : {});
  }
  const checked = !quick ? null : type === 'progress' ? quickProgress(parsed.message) : type === 'log' ? quickLog(parsed.message) : null;
  return checked ? { ok: true, message: checked } : validate<EngineLine>(schemas[type], parsed.message, line, type);
}

// Progress and log lines come many times a unit: they are checked by hand first, by the same rules
// as their schemas, because zod's parse of them took about 5% of the host's thread at the stress
// pace (docs/benchmarks.md "Session 12"). A line that fails goes to the schema, which names the
// field; a test holds both to the same answers.
function quickProgress(m: Record<string, unknown>): ProgressLine | null {
  const { ratio, message, key, params } = m;
  if (typeof ratio !== 'number' || !(ratio >= 0 && ratio <= 1)) return null;
  if (!optionalString(message) || !optionalKey(key) || (key !== undefined && message === undefined) || !optionalRecord(params)) return null;
  return { type: 'progress', ratio, ...(message !== undefined ? { message } : {}), ...(key !== undefined ? { key } : {}), ...(params !== undefined ? { params } : {}) };
}

function quickLog(m: Record<string, unknown>): LogLine | null {
  const { level, text, key, params } = m;
  if (!(LOG_LEVELS as readonly unknown[]).includes(level) || typeof text !== 'string' || !optionalKey(key) || !optionalRecord(params)) return null;
  return { type: 'log', level: level as LogLevel, text, ...(key !== undefined ? { key } : {}), ...(params !== undefined ? { params } : {}) };
}

const optionalString = (v: unknown): v is string | undefined => v === undefined || typeof v === 'string';
const optionalKey = (v: unknown): v is string | undefined => v === undefined || (typeof v === 'string' && v.length <= 100 && LOG_KEY_PATTERN.test(v));
const optionalRecord = (v: unknown): v is Record<string, unknown> | undefined => v === undefined || isRecord(v);

function validate<T>(schema: z.ZodType, value: unknown, line: string, type: string): ParsedLine<T> {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, message: result.data as T };
  const field = result.error.issues[0]?.path.map(String).join('.') ?? '';
  return violation(line, 'invalid-field', { type, field });
}
