// A run log line in the reader's language (docs/i18n.md "Log lines"): a keyed line is said from its
// message and parameters, each parameter through the window's own words (counts with their plural,
// sizes, money, operations, lanes, reason sentences); a line without a key, or with one this window
// does not know, is its stored English text.
import { en } from './en';
import type { Formatters } from './format';
import { isReasonCode } from '../../../src-shared/reasons/codes';

export interface SaidLine {
  text: string;
  /** False when the stored English text is shown (no key, or an unknown one). */
  keyed: boolean;
  /** The raw key and params for a details tooltip and bug reports; null for a plain line. */
  details: string | null;
}

export interface LineWords {
  t(key: string, named?: Record<string, unknown>, plural?: number): string;
  f: Formatters;
  op(id: string): string;
  lane(id: string): string;
  /** A reason code as a sentence; undefined when the window has none for it. */
  reason(code: string): string | undefined;
}

const has = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);
// Byte counts: a log line's sizes, and a download's progress (received, total, speed per second).
const BYTES = new Set(['bytes', 'resumedFrom', 'received', 'total', 'speed']);
const decimals = new Map<string, Intl.NumberFormat>();

function decimal(locale: string, n: number, digits: number): string {
  const k = `${locale}/${digits}`;
  let nf = decimals.get(k);
  if (!nf) decimals.set(k, (nf = new Intl.NumberFormat(locale, { minimumFractionDigits: 0, maximumFractionDigits: digits })));
  return nf.format(n);
}

function usd(locale: string, n: number): string {
  return new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 6 }).format(n);
}

/** One parameter as the sentence says it. */
function param(name: string, value: unknown, w: LineWords): string {
  if (typeof value === 'number' && Number.isFinite(value)) {
    if (has(en.runLog.counts, name)) return w.t(`runLog.counts.${name}`, { n: w.f.count(value) }, value);
    if (BYTES.has(name)) return w.f.bytes(value);
    if (/usd$/i.test(name)) return usd(w.f.locale, value);
    // Seconds (startS, speechS, tookS, ...): a decimal, as precise as the host wrote it.
    if (/S$/.test(name)) return decimal(w.f.locale, value, 2);
    return w.f.count(value);
  }
  if (typeof value !== 'string') return value === null || value === undefined ? '' : String(value);
  if (name === 'operation') return w.op(value);
  if (name === 'lane') return w.lane(value);
  if (name === 'code') return (isReasonCode(value) ? w.reason(value) : undefined) ?? value;
  if (name === 'why' && has(en.runLog.why, value)) return w.t(`runLog.why.${value}`);
  return value;
}

/** A line with its English text, and the key and params it was made from when it has them. */
export interface KeyedText { text: string; key?: string | null; params?: Record<string, unknown> | null }

/**
 * A keyed text said from the message of its key in one table (`group` is the table's path in the
 * messages, `known` its English keys); the stored English text when the key is none or unknown.
 * Shared by run log lines and progress messages (progress-line.ts).
 */
export function sayKeyed(line: KeyedText, group: string, known: object, w: LineWords): SaidLine {
  const details = line.key ? `${line.key} ${JSON.stringify(line.params ?? {})}` : null;
  if (!line.key || !has(known, line.key)) return { text: line.text, keyed: false, details };
  const named: Record<string, string> = {};
  for (const [name, value] of Object.entries(line.params ?? {})) named[name] = param(name, value, w);
  // A line a pool worker's engine wrote names that worker (docs/pools.md "Log lines on the host").
  const onWorker = typeof line.params?.onWorker === 'string' ? `[${line.params.onWorker}] ` : '';
  return { text: `${onWorker}${w.t(`${group}.${line.key}`, named)}`, keyed: true, details };
}

export function sayLogLine(line: KeyedText, w: LineWords): SaidLine {
  return sayKeyed(line, 'runLog.lines', en.runLog.lines, w);
}
