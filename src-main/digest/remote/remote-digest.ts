// The model digest of one item (engines `openai-compatible` and `llama-cpp`): the plan's parts each summarised
// (map), their digests combined in rounds (reduce), the final answer read into the digest record with
// its moments pinned to the transcript's sentences (speaker and start from the transcript, never from
// the model). Before every request the unit's budget is checked against that request's bound; usage
// is what the answers report, or an estimate marked as one (docs/digests.md).
import type { TranscriptRecord } from '../../../src-shared/transcript/record';
import { DIGEST_FORMAT_VERSION, type DigestRecord, type DigestUsage } from '../../../src-shared/digest/record';
import { TOKENS_PER_MESSAGE, typicalTokens, usdOf } from '../../../src-shared/digest/tokens';
import { EngineJobError } from '../../engines/program-kit';
import { splitSentences, type Sentence } from '../sentences';
import type { ChatAnswer, ChatMessage } from './chat-client';
import { parseModelAnswer, type ModelAnswer } from './answer';
import { cutToBytes, planRemoteDigest, requestBound, type RemoteShape } from './plan';
import { partDigestText, reducePrompt, systemPrompt } from './prompt';
import { remoteError } from './errors';
import { fitsSpendCap } from '../../gates/spend-cap';
import { logLine, type LogMessage } from '../../../src-shared/runs/log-keys';
import { progressMessage, type ProgressMessage } from '../../../src-shared/runs/progress-keys';

/** One request to a chat model: the remote endpoint (chat-client.ts) or a local one (llama-cpp). */
export type ChatComplete = (messages: readonly ChatMessage[], maxTokens: number, onDelta: (chars: number) => void) => Promise<ChatAnswer>;

export interface RemoteDigestInput {
  item: string;
  transcript: TranscriptRecord;
  shape: RemoteShape;
  /** The engine id and model name the record names. */
  engine: string;
  model: string;
  complete: ChatComplete;
  /** Most this unit may spend (its reservation under the spend cap); null: no cap. */
  budgetUsd: number | null;
  /** Which request is out, as a keyed message (src-shared/runs/progress-keys.ts). */
  progress?: (ratio: number, message?: ProgressMessage) => void;
  log?: (line: LogMessage) => void;
}

export interface Spent extends DigestUsage {
  usd: number;
}

export interface RemoteDigestResult {
  record: DigestRecord;
  spent: Spent;
}

/** What a failure had already spent rides along in its params, so the host records it. */
function withSpent(e: unknown, spent: Spent): unknown {
  if (!(e instanceof EngineJobError)) return e;
  return new EngineJobError(e.code, e.message, { ...e.params, spent: { ...spent } }, e.diagnostic);
}

export async function remoteDigest(input: RemoteDigestInput): Promise<RemoteDigestResult> {
  const { shape } = input;
  const sentences = splitSentences(input.transcript);
  const plan = planRemoteDigest(sentences, shape);
  const spent: Spent = { requests: 0, inputTokens: 0, outputTokens: 0, estimated: false, usd: 0 };
  const system = systemPrompt(shape);
  let done = 0;
  input.log?.(logLine('digestPlan', { sentences: sentences.length, parts: plan.parts.length, requests: plan.requests, boundUsd: plan.boundUsd }));

  const ask = async (user: string, said: ProgressMessage): Promise<ModelAnswer> => {
    const label = said.text;
    const bound = usdOf(requestBound(shape, user), shape.maxOutputTokens, shape.prices);
    if (!fitsSpendCap(input.budgetUsd, spent.usd, bound)) {
      throw remoteError('SPEND_CAP', 'The next request to the remote model could cross the spend cap; nothing more was sent.', { budgetUsd: input.budgetUsd, nextBoundUsd: bound });
    }
    const messages: ChatMessage[] = [{ role: 'system', content: system }, { role: 'user', content: user }];
    const expectChars = shape.maxOutputTokens * 4;
    // What the request is charged when its usage cannot be known: its reserved bound (issue 23).
    const chargeBound = () => {
      spent.requests++;
      spent.estimated = true;
      spent.inputTokens += requestBound(shape, user);
      spent.outputTokens += shape.maxOutputTokens;
      spent.usd += bound;
    };
    let answer: ChatAnswer;
    try {
      answer = await input.complete(messages, shape.maxOutputTokens,
        (chars) => input.progress?.((done + Math.min(0.99, chars / expectChars)) / plan.requests, said));
    } catch (e) {
      // The server took the request and may bill it (an answer that never ended, or one cut off).
      if (e instanceof EngineJobError && (e.code === 'REMOTE_TIMEOUT' || e.code === 'REMOTE_MALFORMED')) chargeBound();
      throw e;
    }
    if (answer.usageUnreadable) {
      input.log?.(logLine('usageMissing', { label, boundUsd: bound }));
      chargeBound();
    } else {
      spent.requests++;
      const usage = answer.usage ?? {
        inputTokens: messages.reduce((s, m) => s + typicalTokens(m.content) + TOKENS_PER_MESSAGE, 0),
        outputTokens: typicalTokens(answer.text),
      };
      if (!answer.usage) spent.estimated = true;
      spent.inputTokens += usage.inputTokens;
      spent.outputTokens += usage.outputTokens;
      spent.usd += usdOf(usage.inputTokens, usage.outputTokens, shape.prices);
    }
    done++;
    input.progress?.(done / plan.requests, said);
    return parseModelAnswer(answer.text);
  };

  try {
    let digests: { from: number; to: number; answer: ModelAnswer }[] = [];
    for (const [i, part] of plan.parts.entries()) {
      digests.push({ from: part.from, to: part.to, answer: await ask(part.text, plan.parts.length === 1 ? progressMessage('digestWhole') : progressMessage('digestPart', { part: i + 1, of: plan.parts.length })) });
    }
    for (let round = 1; digests.length > 1; round++) {
      const next: typeof digests = [];
      for (let g = 0; g < digests.length; g += plan.reduceGroup) {
        const group = digests.slice(g, g + plan.reduceGroup);
        const texts = group.map((d, k) => cutToBytes(partDigestText(g + k, d.from, d.to, d.answer.summary, d.answer.moments), plan.partDigestBytes));
        next.push({ from: group[0].from, to: group[group.length - 1].to, answer: await ask(reducePrompt(texts), progressMessage('digestCombining', { round })) });
      }
      digests = next;
    }
    const final = digests[0]?.answer ?? { summary: '', moments: [] };
    const record: DigestRecord = {
      version: DIGEST_FORMAT_VERSION, item: input.item, engine: input.engine, model: input.model,
      language: input.transcript.language, durationS: input.transcript.durationS,
      summary: final.summary, moments: pinMoments(final.moments, sentences, shape.moments),
      usage: { requests: spent.requests, inputTokens: spent.inputTokens, outputTokens: spent.outputTokens, estimated: spent.estimated },
      usd: spent.usd,
      ...(final.prose ? { prose: true as const } : {}),
    };
    return { record, spent };
  } catch (e) {
    throw withSpent(e, spent);
  }
}

/**
 * The model's moments on the transcript's sentences: each one's start moves to the sentence it
 * names (the last that starts at or before it), whose speaker and times it takes; one per sentence.
 */
export function pinMoments(moments: readonly { start: number; text: string }[], sentences: readonly Sentence[], max: number): DigestRecord['moments'] {
  if (sentences.length === 0) return [];
  const out = new Map<number, DigestRecord['moments'][number]>();
  for (const m of moments) {
    // Lines show whole seconds: a moment at [754] belongs to the sentence that starts in 754..755.
    let lo = 0;
    let hi = sentences.length - 1;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (Math.floor(sentences[mid].start) <= m.start) lo = mid; else hi = mid - 1;
    }
    const s = sentences[lo];
    if (!out.has(s.index)) out.set(s.index, { start: s.start, end: s.end, speaker: s.speaker, text: m.text });
  }
  return [...out.values()].sort((a, b) => a.start - b.start).slice(0, max);
}
