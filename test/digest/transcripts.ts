// Transcripts for the digest tests: a real pocketsphinx one of speech made with espeak-ng (no
// punctuation, wrong words: what the cpu engine gives), and the benchmark's long synthetic ones.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TRANSCRIPT_FORMAT_VERSION, type TranscriptRecord, type TranscriptSegment } from '../../src-shared/transcript/record';

export { syntheticTranscript } from '../../src-main/bench/synthetic-transcript';

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
