// Long speaker-labelled transcripts for the digest benchmark and tests: two speakers talking topic by
// topic from a seeded word list, at 2.5 words a second with pauses between sentences and no
// punctuation, as pocketsphinx writes (an hour is about 9,000 words).
import { mulberry32 } from '../../src-shared/corpus/random';
import { TRANSCRIPT_FORMAT_VERSION, type TranscriptRecord, type TranscriptSegment } from '../../src-shared/transcript/record';

const TOPICS = [
  ['budget', 'library', 'council', 'funding', 'construction', 'volunteers', 'mayor', 'spring'],
  ['river', 'flooding', 'bridge', 'engineers', 'rainfall', 'repairs', 'traffic', 'detour'],
  ['school', 'teachers', 'students', 'curriculum', 'exams', 'reading', 'science', 'classrooms'],
  ['hospital', 'nurses', 'patients', 'clinic', 'doctors', 'waiting', 'emergency', 'beds'],
];
const GLUE = ['the', 'and', 'we', 'said', 'that', 'will', 'new', 'about', 'for', 'this', 'year', 'is', 'was', 'very', 'more', 'our'];

/** `seconds` of two speakers talking, topic by topic, with pauses between sentences and no punctuation. */
export function syntheticTranscript(seconds: number, seed = 7, speakers = ['spk-a', 'spk-b']): TranscriptRecord {
  const rand = mulberry32(seed);
  const segments: TranscriptSegment[] = [];
  let t = 0;
  let turn = 0;
  while (t < seconds) {
    const topic = TOPICS[Math.floor((t / Math.max(seconds, 1)) * TOPICS.length) % TOPICS.length];
    const speaker = speakers[turn++ % speakers.length];
    const start = t;
    const words: TranscriptSegment['words'] = [];
    const sentences = 1 + Math.floor(rand() * 3);
    for (let s = 0; s < sentences; s++) {
      const n = 6 + Math.floor(rand() * 10);
      for (let k = 0; k < n; k++) {
        const w = rand() < 0.45 ? topic[Math.floor(rand() * topic.length)] : GLUE[Math.floor(rand() * GLUE.length)];
        words.push({ w, start: t, end: t + 0.32, p: 0.9 });
        t += 0.4;
      }
      t += 0.9; // the pause that ends a sentence
    }
    segments.push({ start, end: t, text: words.map((w) => w.w).join(' '), speaker, words });
    t += 0.3;
  }
  return { version: TRANSCRIPT_FORMAT_VERSION, engine: 'pocketsphinx', model: 'synthetic', language: 'en', durationS: t, segments };
}

