// Transcripts for the digest tests and the benchmark: a real pocketsphinx one of speech made with
// espeak-ng (no punctuation, wrong words: what the cpu engine gives), and long speaker-labelled ones
// built from a seeded word list (an hour is about 9,000 words at 2.5 words a second).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

/** Speech made with espeak-ng, decoded by pocketsphinx_continuous: real pocketsphinx-quality words and times. */
export function pocketsphinxTranscript(text: string, speaker: string | null = 'spk-a'): TranscriptRecord {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-ps-'));
  try {
    const wav = path.join(dir, 'speech.wav');
    const pcm = path.join(dir, 'speech16k.wav');
    execFileSync('espeak-ng', ['-w', wav, '--', text]);
    execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-i', `file:${wav}`, '-ar', '16000', '-ac', '1', `file:${pcm}`]);
    const out = execFileSync('pocketsphinx_continuous', ['-infile', pcm, '-time', 'yes', '-logfn', '/dev/null'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const words: TranscriptSegment['words'] = [];
    for (const line of out.split('\n')) {
      const m = /^(\S+) (\d+\.\d+) (\d+\.\d+) (\d+\.\d+)$/.exec(line.trim());
      if (!m) continue;
      words.push({ w: m[1], start: Number(m[2]), end: Number(m[3]), p: Math.min(1, Number(m[4])) });
    }
    const end = words.at(-1)?.end ?? 0;
    return {
      version: TRANSCRIPT_FORMAT_VERSION, engine: 'pocketsphinx', model: 'en-us', language: 'en', durationS: end,
      segments: [{ start: 0, end, text: words.map((w) => w.w).join(' '), speaker, words }],
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
