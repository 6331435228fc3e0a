// The channel roll-up (engine `rollup`): the item digests of one period read, their summaries'
// sentences ranked by LexRank into the channel's summary, and the items' key moments ranked the same
// way; every item keeps its own summary beside it. No model, no money.
import { CHANNEL_DIGEST_FORMAT_VERSION, type ChannelDigestRecord } from '../../src-shared/digest/channel-record';
import type { DigestRecord } from '../../src-shared/digest/record';
import type { CalendarPeriod } from '../../src-shared/schedule/calendar-period';
import { pickSentences, EXTRACTIVE_MODEL } from './extractive';
import type { Sentence } from './sentences';

export interface RollupItem {
  item: string;
  title: string;
  publishedAt: number;
  digest: DigestRecord;
}

export interface RollupOptions {
  channel: string;
  title: string;
  period: CalendarPeriod;
  summarySentences: number;
  moments: number;
}

function summarySentences(text: string): string[] {
  return text.split(/(?<=[.!?…。！？])\s+/u).map((s) => s.trim()).filter((s) => s !== '');
}

export function rollUp(items: readonly RollupItem[], o: RollupOptions): ChannelDigestRecord {
  const ordered = [...items].sort((a, b) => a.publishedAt - b.publishedAt || (a.item < b.item ? -1 : 1));
  const language = ordered[0]?.digest.language ?? 'en';
  // Summary sentences as spans in a common order: item by item, sentence by sentence.
  const spans: (Sentence & { item: string })[] = [];
  for (const it of ordered) for (const text of summarySentences(it.digest.summary)) spans.push({ index: spans.length, start: 0, end: 0, speaker: null, text, item: it.item });
  const summary = pickSentences(spans, language, { summarySentences: o.summarySentences, moments: 0 })
    .sort((a, b) => a.index - b.index).map((s) => s.text).join(' ');
  const moments: { item: string; start: number; speaker: string | null; text: string; index: number }[] = [];
  for (const it of ordered) for (const m of it.digest.moments) moments.push({ item: it.item, start: m.start, speaker: m.speaker, text: m.text, index: moments.length });
  const kept = new Set(pickSentences(moments.map((m) => ({ index: m.index, start: m.start, end: m.start, speaker: m.speaker, text: m.text })), language, { summarySentences: 0, moments: o.moments }).map((s) => s.index));
  return {
    version: CHANNEL_DIGEST_FORMAT_VERSION, channel: o.channel, title: o.title,
    period: { kind: o.period.kind, key: o.period.key, start: o.period.start, end: o.period.end },
    engine: 'rollup', model: EXTRACTIVE_MODEL, summary,
    items: ordered.map((it) => ({ item: it.item, title: it.title, publishedAt: it.publishedAt, engine: it.digest.engine, summary: it.digest.summary })),
    moments: moments.filter((m) => kept.has(m.index)).map((m) => ({ item: m.item, start: m.start, speaker: m.speaker, text: m.text })),
  };
}
