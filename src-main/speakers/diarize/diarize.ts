// Who spoke when in one file (docs/speakers.md): speech regions from the VAD, x-vectors over
// overlapping windows inside each region, agglomerative clustering of the windows, then turns:
// each window speaks for the stretch nearest its centre, and runs of one cluster become one turn.
import { BacklotError } from '../../../src-shared/errors';
import { TURNS_FORMAT_VERSION, type SpeakerTurn, type TurnsRecord } from '../../../src-shared/speakers/turns';
import { analyseAudio, type AudioAnalysis } from '../audio/analyse';
import { embedWindows, meanDirection, type FrameSpan, type XVectorModel } from '../xvector/extractor';
import { DEFAULT_VAD, type VadSettings } from '../vad/silero-vad';
import { clusterEmbeddings } from './cluster';
import { progressMessage, type ProgressMessage } from '../../../src-shared/runs/progress-keys';

export interface DiarizeSettings {
  /** Cosine distance above which two groups of windows are different speakers. */
  threshold: number;
  /** A known number of speakers; clustering then stops at exactly that many. */
  speakers?: number;
  windowS: number;
  hopS: number;
  /** Speech regions shorter than this get no embedding of their own (the model is unreliable there). */
  minWindowS: number;
  /** More windows than this are clustered in consecutive groups, so memory stays bounded. */
  maxWindows: number;
  vad: VadSettings;
}

export const DEFAULT_DIARIZE: DiarizeSettings = {
  threshold: 0.65,
  windowS: 1.5,
  hopS: 0.75,
  minWindowS: 0.5,
  maxWindows: 4000,
  vad: DEFAULT_VAD,
};

export interface DiarizeModels {
  xvector: XVectorModel;
  vadModelFile: string;
  /** The model's name as the sidecar records it. */
  modelName: string;
  engineId: string;
}

interface Window { region: number; span: FrameSpan; embedding: Float32Array | null }

export async function diarizeFile(file: string, models: DiarizeModels, settings: DiarizeSettings = DEFAULT_DIARIZE,
  progress?: { durationHintS?: number | null; onProgress?: (ratio: number, message: ProgressMessage) => void; signal?: AbortSignal }): Promise<TurnsRecord> {
  validateSettings(settings);
  const audio = await analyseAudio(file, {
    vadModelFile: models.vadModelFile, vad: settings.vad, mfcc: models.xvector.mfcc,
    durationHintS: progress?.durationHintS, signal: progress?.signal,
    onProgress: (r) => progress?.onProgress?.(0.4 * r, progressMessage('diarizeDecoding')),
  });
  progress?.onProgress?.(0.4, progressMessage('diarizeEmbedding'));
  return diarizeAnalysis(audio, models, settings, (r) => progress?.onProgress?.(0.4 + 0.55 * r, progressMessage('diarizeEmbedding')));
}

export function validateSettings(s: DiarizeSettings): void {
  const bad = (what: string): never => { throw new BacklotError('SETTING_INVALID', `Diarization setting ${what}.`, { setting: what.split(' ')[0] }); };
  if (!(s.threshold > 0 && s.threshold < 2)) bad('threshold must be a cosine distance between 0 and 2');
  if (s.speakers !== undefined && !(Number.isInteger(s.speakers) && s.speakers >= 1)) bad('speakers must be a whole number of at least 1');
  if (!(s.windowS >= 0.5 && s.windowS <= 4)) bad('windowS must be between 0.5 and 4 seconds');
  if (!(s.hopS > 0 && s.hopS <= s.windowS)) bad('hopS must be positive and at most windowS');
  if (!(s.minWindowS > 0 && s.minWindowS <= s.windowS)) bad('minWindowS must be positive and at most windowS');
  if (!(Number.isInteger(s.maxWindows) && s.maxWindows >= 2)) bad('maxWindows must be a whole number of at least 2');
}

export function diarizeAnalysis(audio: AudioAnalysis, models: DiarizeModels, settings: DiarizeSettings, onProgress?: (ratio: number) => void): TurnsRecord {
  const shift = audio.frameShiftS;
  const toFrame = (s: number): number => Math.max(0, Math.min(audio.frames, Math.round(s / shift)));
  const winFrames = Math.round(settings.windowS / shift);
  const hopFrames = Math.max(1, Math.round(settings.hopS / shift));
  const minFrames = Math.round(settings.minWindowS / shift);

  const windows: Window[] = [];
  const regionSpans = audio.regions.map((r) => ({ start: toFrame(r.start), end: toFrame(r.end) }));
  let doneFrames = 0;
  const totalFrames = regionSpans.reduce((s, r) => s + (r.end - r.start), 0) || 1;
  regionSpans.forEach((span, region) => {
    const length = span.end - span.start;
    if (length >= minFrames) {
      const spans: FrameSpan[] = [];
      if (length <= winFrames) spans.push(span);
      else {
        for (let s = span.start; s + winFrames <= span.end; s += hopFrames) spans.push({ start: s, end: s + winFrames });
        const last = spans[spans.length - 1];
        if (last.end < span.end) spans.push({ start: span.end - winFrames, end: span.end });
      }
      const embeddings = embedWindows(models.xvector, audio.mfcc, audio.frames, span, spans);
      spans.forEach((s, i) => windows.push({ region, span: s, embedding: embeddings[i] }));
    }
    doneFrames += length;
    onProgress?.(doneFrames / totalFrames);
  });

  const embedded = windows.filter((w): w is Window & { embedding: Float32Array } => w.embedding !== null);
  const labels = clusterInGroups(embedded, settings);
  embedded.forEach((w, i) => { (w as Window & { label?: number }).label = labels[i]; });

  // Each region's frames take the label of the window whose centre is nearest.
  type Piece = { start: number; end: number; label: number; region: number; windows: Float32Array[]; weights: number[] };
  const pieces: Piece[] = [];
  const byRegion = new Map<number, (Window & { label: number; embedding: Float32Array })[]>();
  for (const w of embedded as (Window & { label: number; embedding: Float32Array })[]) {
    const list = byRegion.get(w.region) ?? [];
    list.push(w);
    byRegion.set(w.region, list);
  }
  const unlabelled: { region: number; start: number; end: number }[] = [];
  regionSpans.forEach((span, region) => {
    const list = byRegion.get(region);
    if (!list || list.length === 0) {
      if (span.end > span.start) unlabelled.push({ region, start: span.start, end: span.end });
      return;
    }
    const centres = list.map((w) => (w.span.start + w.span.end) / 2);
    list.forEach((w, i) => {
      const start = i === 0 ? span.start : Math.round((centres[i - 1] + centres[i]) / 2);
      const end = i === list.length - 1 ? span.end : Math.round((centres[i] + centres[i + 1]) / 2);
      if (end <= start) return;
      const prev = pieces[pieces.length - 1];
      if (prev && prev.region === region && prev.label === w.label && prev.end === start) {
        prev.end = end;
        prev.windows.push(w.embedding);
        prev.weights.push(end - start);
      } else {
        pieces.push({ start, end, label: w.label, region, windows: [w.embedding], weights: [end - start] });
      }
    });
  });
  // Regions too short to embed speak for the nearest labelled speech in time.
  for (const u of unlabelled) {
    let best: Piece | null = null;
    let bestGap = Infinity;
    for (const p of pieces) {
      const gap = p.end <= u.start ? u.start - p.end : p.start >= u.end ? p.start - u.end : 0;
      if (gap < bestGap) {
        bestGap = gap;
        best = p;
      }
    }
    if (best) pieces.push({ start: u.start, end: u.end, label: best.label, region: u.region, windows: [], weights: [] });
  }
  pieces.sort((a, b) => a.start - b.start);

  const clusterIds = new Map<number, number>();
  for (const p of pieces) if (!clusterIds.has(p.label)) clusterIds.set(p.label, clusterIds.size);
  const turns: SpeakerTurn[] = pieces.map((p) => {
    const e = meanDirection(p.windows, p.weights);
    return { start: round(p.start * shift), end: round(p.end * shift), cluster: clusterIds.get(p.label)!, embedding: e ? vectorOut(e) : null };
  }).filter((t) => t.end > t.start);

  const clusters = [...clusterIds.entries()].map(([label, cluster]) => {
    const members = embedded.filter((_, i) => labels[i] === label);
    const e = meanDirection(members.map((w) => w.embedding));
    const seconds = pieces.filter((p) => p.label === label).reduce((s, p) => s + (p.end - p.start) * shift, 0);
    return { cluster, seconds: round(seconds), embedding: vectorOut(e!) };
  });
  const speechS = regionSpans.reduce((s, r) => s + (r.end - r.start) * shift, 0);
  return {
    version: TURNS_FORMAT_VERSION, engine: models.engineId, model: models.modelName,
    durationS: round(audio.durationS), speechS: round(speechS), turns, clusters,
  };
}

/** Clusters the windows; above maxWindows, consecutive windows are grouped first (their mean clusters for them). */
function clusterInGroups(windows: { embedding: Float32Array; region: number }[], settings: DiarizeSettings): number[] {
  if (windows.length <= settings.maxWindows) {
    return clusterEmbeddings({ vectors: windows.map((w) => w.embedding), threshold: settings.threshold, speakers: settings.speakers });
  }
  const group = Math.ceil(windows.length / settings.maxWindows);
  const groups: number[][] = [];
  windows.forEach((w, i) => {
    const last = groups[groups.length - 1];
    if (last && last.length < group && windows[last[0]].region === w.region) last.push(i);
    else groups.push([i]);
  });
  const labels = clusterEmbeddings({
    vectors: groups.map((g) => meanDirection(g.map((i) => windows[i].embedding))!),
    threshold: settings.threshold, speakers: settings.speakers,
  });
  const out = new Array<number>(windows.length);
  groups.forEach((g, gi) => { for (const i of g) out[i] = labels[gi]; });
  return out;
}

const round = (s: number): number => Math.round(s * 1000) / 1000;

/** Six decimals: plenty for cosine matching, a third of the sidecar's size. */
function vectorOut(v: Float32Array): number[] {
  return Array.from(v, (x) => Math.round(x * 1e6) / 1e6);
}
