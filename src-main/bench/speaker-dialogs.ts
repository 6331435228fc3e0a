// Real-voice fixtures for the speaker benchmarks and tests (docs/speakers.md): dialogs made by
// joining Debian's pocketsphinx-testdata recordings of different people with short silences, with
// the truth of who speaks when; and the scoring of a diarization against that truth.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BacklotError } from '../../src-shared/errors';
import type { TurnsRecord } from '../../src-shared/speakers/turns';

export const TESTDATA_DIR = '/usr/share/pocketsphinx/test/data';

/** The three people in pocketsphinx-testdata and their recordings. */
export const TESTDATA_VOICES: Record<'reader' | 'cards' | 'commands', string[]> = {
  reader: ['0870', '0880', '0890', '0920', '0930'].map((n) => `librivox/sense_and_sensibility_01_austen_64kb-${n}.wav`),
  cards: ['001', '002', '003', '004', '005'].map((n) => `cards/${n}.wav`),
  commands: ['goforward.raw', 'numbers.raw', 'something.raw'],
};
export type Voice = keyof typeof TESTDATA_VOICES;

export interface Utterance { voice: Voice; index: number }
export interface DialogTruth { file: string; spans: { voice: Voice; start: number; end: number }[]; durationS: number }

export function requireTestdata(): void {
  if (!fs.existsSync(path.join(TESTDATA_DIR, 'librivox'))) {
    throw new BacklotError('TESTDATA_MISSING', `The pocketsphinx-testdata recordings are not in ${TESTDATA_DIR}; run scripts/install-system-packages.sh.`);
  }
}

/** A 16 kHz mono 16-bit WAV of one recording (the .raw ones are headerless PCM of that format). */
export function recordingWav(voice: Voice, index: number, dir: string): string {
  const rel = TESTDATA_VOICES[voice][index];
  const source = path.join(TESTDATA_DIR, rel);
  if (!rel.endsWith('.raw')) return source;
  const out = path.join(dir, `${voice}-${index}.wav`);
  if (!fs.existsSync(out)) execFileSync('sox', ['-t', 'raw', '-r', '16000', '-e', 'signed', '-b', '16', '-c', '1', source, out]);
  return out;
}

export function durationOf(file: string): number {
  return Number(execFileSync('soxi', ['-D', file], { encoding: 'utf8' }).trim());
}

/** Joins the utterances with `gapS` of silence between them into one WAV, and says who speaks when. */
export function makeDialog(name: string, utterances: readonly Utterance[], dir: string, gapS = 0.4): DialogTruth {
  fs.mkdirSync(dir, { recursive: true });
  const gap = path.join(dir, `gap-${gapS}.wav`);
  if (!fs.existsSync(gap)) execFileSync('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', gap, 'trim', '0', String(gapS)]);
  const parts: string[] = [];
  const spans: DialogTruth['spans'] = [];
  let t = 0;
  utterances.forEach((u, i) => {
    if (i > 0) {
      parts.push(gap);
      t += gapS;
    }
    const wav = recordingWav(u.voice, u.index, dir);
    const d = durationOf(wav);
    parts.push(wav);
    spans.push({ voice: u.voice, start: t, end: t + d });
    t += d;
  });
  const file = path.join(dir, `${name}.wav`);
  execFileSync('sox', [...parts, file]);
  return { file, spans, durationS: t };
}

const u = (voice: Voice, index: number): Utterance => ({ voice, index });

/** The benchmark's dialogs: every pair of the three people, and all three together. */
export function standardDialogs(dir: string): { name: string; speakers: number; truth: DialogTruth }[] {
  requireTestdata();
  const defs: [string, Utterance[]][] = [
    ['reader-cards', [u('reader', 0), u('cards', 4), u('reader', 1), u('cards', 1), u('reader', 2), u('cards', 2), u('reader', 3), u('cards', 3)]],
    ['reader-commands', [u('reader', 3), u('commands', 0), u('reader', 4), u('commands', 1), u('reader', 0), u('commands', 2)]],
    ['cards-commands', [u('cards', 4), u('commands', 1), u('cards', 1), u('commands', 0), u('cards', 3), u('commands', 2), u('cards', 2)]],
  ];
  const three: [string, Utterance[]] = ['three-people', [u('reader', 0), u('cards', 4), u('commands', 1), u('reader', 2), u('cards', 1), u('commands', 0), u('reader', 4), u('commands', 2)]];
  return [...defs.map(([name, list]) => ({ name, speakers: 2, truth: makeDialog(name, list, dir) })),
    { name: three[0], speakers: 3, truth: makeDialog(three[0], three[1], dir) }];
}

export interface DialogScore {
  speakersFound: number;
  /** Share of the diarized speech time (inside the truth's utterances) given to the right person. */
  correctShare: number;
  /** Diarized speech time inside utterances over the utterances' total time. */
  coverage: number;
}

/** Scores turns against the truth with the best one-to-one mapping of clusters to people. */
export function scoreDialog(record: TurnsRecord, truth: DialogTruth): DialogScore {
  const voices = [...new Set(truth.spans.map((s) => s.voice))];
  const clusters = record.clusters.map((c) => c.cluster);
  const overlap = new Map<string, number>();
  let inside = 0;
  for (const t of record.turns) {
    for (const s of truth.spans) {
      const o = Math.max(0, Math.min(t.end, s.end) - Math.max(t.start, s.start));
      if (o <= 0) continue;
      inside += o;
      const key = `${t.cluster}\0${s.voice}`;
      overlap.set(key, (overlap.get(key) ?? 0) + o);
    }
  }
  let best = 0;
  // Few clusters and voices: try every assignment of clusters to distinct voices (or none).
  const assign = (ci: number, used: Set<string>, total: number): void => {
    if (ci === clusters.length) {
      best = Math.max(best, total);
      return;
    }
    assign(ci + 1, used, total);
    for (const v of voices) {
      if (used.has(v)) continue;
      used.add(v);
      assign(ci + 1, used, total + (overlap.get(`${clusters[ci]}\0${v}`) ?? 0));
      used.delete(v);
    }
  };
  if (clusters.length <= 8) assign(0, new Set(), 0);
  const truthTime = truth.spans.reduce((s, x) => s + (x.end - x.start), 0);
  return { speakersFound: clusters.length, correctShare: inside > 0 ? best / inside : 0, coverage: truthTime > 0 ? inside / truthTime : 0 };
}
