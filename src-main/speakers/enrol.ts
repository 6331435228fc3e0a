// Enrolment (docs/speakers.md): the embedding of the speech in a chosen clip of a file, as the
// unit-length mean of x-vectors over 3-second windows of it. The model is unreliable on less than
// about 1.5 s of speech, so a shorter clip is refused instead of making a poor voiceprint.
import { BacklotError } from '../../src-shared/errors';
import { analyseAudio } from './audio/analyse';
import { DEFAULT_VAD } from './vad/silero-vad';
import { embedWindows, meanDirection, type FrameSpan, type XVectorModel } from './xvector/extractor';

export const MIN_ENROL_SPEECH_S = 1.5;
const WINDOW_S = 3;
const HOP_S = 1.5;

export async function embedClip(file: string, model: XVectorModel, vadModelFile: string, span: { fromS?: number; toS?: number } = {}): Promise<{ embedding: Float32Array; seconds: number }> {
  const from = span.fromS ?? 0;
  const to = span.toS ?? Infinity;
  if (!(from >= 0) || !(to > from)) throw new BacklotError('CLIP_INVALID', 'The clip must end after it starts, at or after 0 s.', { from, to });
  const audio = await analyseAudio(file, { vadModelFile, vad: DEFAULT_VAD, mfcc: model.mfcc });
  const shift = audio.frameShiftS;
  const win = Math.round(WINDOW_S / shift);
  const hop = Math.round(HOP_S / shift);
  const minFrames = Math.round(0.5 / shift);
  const embeddings: Float32Array[] = [];
  const weights: number[] = [];
  let speech = 0;
  for (const r of audio.regions) {
    const start = Math.max(r.start, from);
    const end = Math.min(r.end, to);
    if (end <= start) continue;
    speech += end - start;
    const s = Math.round(start / shift);
    const e = Math.min(audio.frames, Math.round(end / shift));
    if (e - s < minFrames) continue;
    const windows: FrameSpan[] = [];
    for (let w = s; w < e; w += hop) {
      windows.push({ start: w, end: Math.min(e, w + win) });
      if (w + win >= e) break;
    }
    embedWindows(model, audio.mfcc, audio.frames, { start: s, end: e }, windows).forEach((v, i) => {
      if (v) {
        embeddings.push(v);
        weights.push(windows[i].end - windows[i].start);
      }
    });
  }
  if (speech < MIN_ENROL_SPEECH_S || embeddings.length === 0) {
    throw new BacklotError('CLIP_TOO_SHORT', `The clip has ${speech.toFixed(1)} s of speech; enrolling needs at least ${MIN_ENROL_SPEECH_S} s.`, { speechS: Math.round(speech * 10) / 10 });
  }
  return { embedding: meanDirection(embeddings, weights)!, seconds: Math.round(speech * 100) / 100 };
}
