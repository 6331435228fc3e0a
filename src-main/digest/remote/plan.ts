// How a transcript is cut to the remote model's context and what the whole digest may cost at most
// (docs/digests.md "Map-reduce" and "Money"): parts of whole transcript lines that fit beside the
// prompt and the answer, then rounds of combining their digests, each round's groups as large as the
// context allows. The bound is computed from the very texts that will be sent, so the host can hold
// a unit back at the spend cap before its first request, and the engine never goes past it.
import { tokenBound, usdOf, utf8Bytes, type Prices } from '../../../src-shared/digest/tokens';
import type { Sentence } from '../sentences';
import { mapPrompt, REDUCE_HEADER, systemPrompt, transcriptLine, type PromptShape } from './prompt';
import { remoteError } from './errors';

export interface RemoteShape extends PromptShape {
  contextTokens: number;
  maxOutputTokens: number;
  prices: Prices;
}

export interface TranscriptPart {
  from: number;
  to: number;
  /** The map request's user message. */
  text: string;
}

export interface RemotePlan {
  parts: TranscriptPart[];
  /** Parts' digests combined per reduce request, at most. */
  reduceGroup: number;
  /** A part's digest is cut to this many bytes before it is sent to be combined. */
  partDigestBytes: number;
  requests: number;
  boundInputTokens: number;
  boundOutputTokens: number;
  boundUsd: number;
}

/** Bytes the user message of one request may have: the context less the answer and the system prompt. */
export function userBytesBudget(shape: RemoteShape): number {
  return (shape.contextTokens - shape.maxOutputTokens - tokenBound(systemPrompt(shape)) - 4) * 3;
}

/** Truncates to at most `bytes` UTF-8 bytes, on a character boundary. */
export function cutToBytes(text: string, bytes: number): string {
  if (utf8Bytes(text) <= bytes) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (utf8Bytes(text.slice(0, mid)) <= bytes) lo = mid; else hi = mid - 1;
  }
  return text.slice(0, lo);
}

export function requestBound(shape: RemoteShape, userText: string): number {
  return tokenBound(systemPrompt(shape)) + tokenBound(userText);
}

export function reduceGroupSize(shape: RemoteShape): { group: number; partDigestBytes: number } {
  const partDigestBytes = shape.maxOutputTokens * 3;
  const group = Math.floor((userBytesBudget(shape) - utf8Bytes(REDUCE_HEADER) - 2) / (partDigestBytes + 2));
  return { group, partDigestBytes };
}

export function planRemoteDigest(sentences: readonly Sentence[], shape: RemoteShape): RemotePlan {
  const budget = userBytesBudget(shape);
  const { group, partDigestBytes } = reduceGroupSize(shape);
  if (budget < 1024 || group < 2) {
    throw remoteError('REMOTE_CONTEXT_TOO_SMALL', `digest.remote.contextTokens (${shape.contextTokens}) leaves too little room beside digest.remote.maxOutputTokens (${shape.maxOutputTokens}).`, { contextTokens: shape.contextTokens, maxOutputTokens: shape.maxOutputTokens });
  }
  // The header with the widest numbers it can have, so a part never outgrows its budget.
  const headerBytes = utf8Bytes(mapPrompt(99999, 99999, 1e9, 1e9, ''));
  const parts: { from: number; to: number; lines: string[] }[] = [];
  let current: { from: number; to: number; lines: string[]; bytes: number } | null = null;
  for (const s of sentences) {
    const line = cutToBytes(transcriptLine(s), budget - headerBytes - 1);
    const bytes = utf8Bytes(line) + 1;
    if (current && current.bytes + bytes > budget - headerBytes) {
      parts.push(current);
      current = null;
    }
    current ??= { from: s.start, to: s.end, lines: [], bytes: 0 };
    current.lines.push(line);
    current.to = s.end;
    current.bytes += bytes;
  }
  if (current) parts.push(current);
  const texts: TranscriptPart[] = parts.map((p, i) => ({ from: p.from, to: p.to, text: mapPrompt(i + 1, parts.length, p.from, p.to, p.lines.join('\n')) }));

  let inputTokens = texts.reduce((sum, p) => sum + requestBound(shape, p.text), 0);
  let requests = texts.length;
  const reduceBound = (k: number) => tokenBound(systemPrompt(shape)) + Math.ceil((utf8Bytes(REDUCE_HEADER) + 2 + k * (partDigestBytes + 2)) / 3) + 4;
  for (let n = texts.length; n > 1;) {
    const groups = Math.ceil(n / group);
    for (let g = 0; g < groups; g++) inputTokens += reduceBound(Math.min(group, n - g * group));
    requests += groups;
    n = groups;
  }
  const outputTokens = requests * shape.maxOutputTokens;
  return { parts: texts, reduceGroup: group, partDigestBytes, requests, boundInputTokens: inputTokens, boundOutputTokens: outputTokens, boundUsd: usdOf(inputTokens, outputTokens, shape.prices) };
}
