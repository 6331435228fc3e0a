// attribute-words (docs/speakers.md): every word of the canonical transcript gets the speaker of
// the turns it overlaps most (a word inside an overlap of two turns goes to the one that covers
// more of it; a word in a pause goes to the nearest turn), segments are cut where the speaker
// changes, and consecutive segments of one speaker are merged, up to a length that keeps
// subtitles and search hits readable. The speaker is a profile id, never a name (a publisher's
// named segment keeps its name: docs/transcripts.md "Speaker names").
import type { TranscriptRecord, TranscriptSegment, TranscriptWord } from '../../src-shared/transcript/record';
import type { SpeakerTurn } from '../../src-shared/speakers/turns';
import { publisherSpeakerName } from '../../src-shared/transcript/speakers';

export interface AttributeWordsOptions {
  /** A merged segment never grows past this many seconds. */
  maxSegmentS: number;
  /** Words farther than this from every turn get no speaker. */
  maxGapS: number;
}

export const DEFAULT_ATTRIBUTE_WORDS: AttributeWordsOptions = { maxSegmentS: 60, maxGapS: 5 };

/** The speaker (profile id) of the span [start, end): most overlap, else the nearest turn. */
export function speakerOfSpan(start: number, end: number, turns: readonly SpeakerTurn[], speakerOf: ReadonlyMap<number, string | null>, maxGapS: number): string | null {
  const overlap = new Map<number, number>();
  let nearest: { cluster: number; gap: number } | null = null;
  for (const t of turns) {
    const o = Math.min(end, t.end) - Math.max(start, t.start);
    if (o > 0) overlap.set(t.cluster, (overlap.get(t.cluster) ?? 0) + o);
    else {
      const gap = t.end <= start ? start - t.end : t.start - end;
      if (!nearest || gap < nearest.gap) nearest = { cluster: t.cluster, gap };
    }
  }
  let best: number | null = null;
  let bestO = 0;
  for (const [cluster, o] of [...overlap.entries()].sort((a, b) => a[0] - b[0])) {
    if (o > bestO) {
      bestO = o;
      best = cluster;
    }
  }
  // A zero-length word (some decoders emit them) overlaps nothing: treat it as a point.
  if (best === null && start === end) {
    for (const t of turns) if (t.start <= start && start < t.end) best = t.cluster;
  }
  if (best === null && nearest && nearest.gap <= maxGapS) best = nearest.cluster;
  return best === null ? null : speakerOf.get(best) ?? null;
}

export function attributeWords(transcript: TranscriptRecord, turns: readonly SpeakerTurn[], speakerOf: ReadonlyMap<number, string | null>,
  options: AttributeWordsOptions = DEFAULT_ATTRIBUTE_WORDS): TranscriptRecord {
  const sorted = [...turns].sort((a, b) => a.start - b.start);
  const pieces: TranscriptSegment[] = [];
  for (const segment of transcript.segments) {
    // The publisher named this segment's speaker: its name stands over a diarized guess (docs/transcripts.md "Speaker names").
    if (publisherSpeakerName(segment.speaker) !== null) {
      pieces.push({ ...segment });
      continue;
    }
    if (segment.words.length === 0) {
      pieces.push({ ...segment, speaker: speakerOfSpan(segment.start, segment.end, sorted, speakerOf, options.maxGapS) });
      continue;
    }
    const labels = segment.words.map((w) => speakerOfSpan(w.start, w.end, sorted, speakerOf, options.maxGapS));
    if (labels.every((l) => l === labels[0])) {
      pieces.push({ ...segment, speaker: labels[0] });
      continue;
    }
    // The speaker changes inside the segment: cut it at each change; the text is rebuilt from the words.
    let run: TranscriptWord[] = [];
    let runSpeaker = labels[0];
    const flush = (): void => {
      if (run.length === 0) return;
      pieces.push({ start: run[0].start, end: run[run.length - 1].end, text: run.map((w) => w.w).join(' '), speaker: runSpeaker, words: run });
      run = [];
    };
    segment.words.forEach((w, i) => {
      if (labels[i] !== runSpeaker) {
        flush();
        runSpeaker = labels[i];
      }
      run.push(w);
    });
    flush();
  }
  const merged: TranscriptSegment[] = [];
  for (const p of pieces) {
    const last = merged[merged.length - 1];
    if (last && last.speaker === p.speaker && p.end - last.start <= options.maxSegmentS) {
      merged[merged.length - 1] = {
        start: last.start, end: Math.max(last.end, p.end), speaker: last.speaker,
        text: [last.text.trim(), p.text.trim()].filter((t) => t !== '').join(' '),
        words: [...last.words, ...p.words],
      };
    } else {
      merged.push({ ...p });
    }
  }
  return { ...transcript, segments: merged };
}
