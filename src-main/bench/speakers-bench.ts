// `backlot bench speakers` (docs/speakers.md, docs/benchmarks.md): on the real voices of
// pocketsphinx-testdata, the speakers found and the share of speech given to the right person in
// each dialog, pairwise precision/recall of cross-file matching at the default thresholds, and the
// real-time factor and peak memory of diarizing a long file made of the dialogs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { diarizeFile, DEFAULT_DIARIZE, type DiarizeModels } from '../speakers/diarize/diarize';
import { loadXVectorModel } from '../speakers/xvector/extractor';
import { sileroVadModel, xvectorModelDir } from '../speakers/model-paths';
import { DEFAULT_MATCH_THRESHOLD, matchClusters } from '../speakers/profiles/match';
import { meanDirection } from '../speakers/xvector/extractor';
import { XVECTOR_ENGINE_ID, XVECTOR_MODEL_NAME } from '../speakers/jobs/diarize-job';
import { TESTDATA_VOICES, recordingWav, scoreDialog, standardDialogs, type Voice } from './speaker-dialogs';

export interface SpeakersBenchResult {
  threshold: number;
  matchThreshold: number;
  dialogs: { name: string; durationS: number; speakers: number; speakersFound: number; correctShare: number; coverage: number }[];
  crossFile: { files: number; orders: { order: string; profiles: number; precision: number; recall: number }[] };
  speed: { mediaS: number; wallS: number; realTimeFactor: number; peakRssMb: number; cpus: number; cpuModel: string };
}

export async function benchSpeakers(options: { minutes: number; log?: (line: string) => void }): Promise<SpeakersBenchResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-bench-speakers-'));
  try {
    const models: DiarizeModels = { xvector: loadXVectorModel(xvectorModelDir()), vadModelFile: sileroVadModel(), modelName: XVECTOR_MODEL_NAME, engineId: XVECTOR_ENGINE_ID };
    const dialogs: SpeakersBenchResult['dialogs'] = [];
    const standard = standardDialogs(dir);
    for (const d of standard) {
      const s = scoreDialog(await diarizeFile(d.truth.file, models), d.truth);
      dialogs.push({ name: d.name, durationS: round(d.truth.durationS, 1), speakers: d.speakers, speakersFound: s.speakersFound, correctShare: round(s.correctShare, 3), coverage: round(s.coverage, 3) });
      options.log?.(`dialog ${d.name}: ${s.speakersFound}/${d.speakers} speakers, ${(100 * s.correctShare).toFixed(1)}% right`);
    }

    // Every recording on its own, matched in turn against the profiles the earlier ones made.
    const files: { voice: Voice; clusters: { cluster: number; seconds: number; embedding: number[] }[] }[] = [];
    for (const voice of Object.keys(TESTDATA_VOICES) as Voice[]) {
      for (let i = 0; i < TESTDATA_VOICES[voice].length; i++) files.push({ voice, clusters: (await diarizeFile(recordingWav(voice, i, dir), models)).clusters });
    }
    const orders = [{ order: 'as listed', list: files }, { order: 'reversed', list: [...files].reverse() }].map(({ order, list }) => {
      const profiles: { id: string; members: Float32Array[]; voiceprint: Float32Array }[] = [];
      const label = list.map((f) => {
        const c = f.clusters[0];
        if (!c) return null;
        const m = matchClusters([c], profiles, DEFAULT_MATCH_THRESHOLD)[0];
        const v = Float32Array.from(c.embedding);
        const p = m.profile ? profiles.find((x) => x.id === m.profile)! : null;
        if (p) {
          p.members.push(v);
          p.voiceprint = meanDirection(p.members)!;
          return p.id;
        }
        const id = `p${profiles.length}`;
        profiles.push({ id, members: [v], voiceprint: v });
        return id;
      });
      let tp = 0, fp = 0, fn = 0;
      for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) {
        const same = list[i].voice === list[j].voice;
        const together = label[i] !== null && label[i] === label[j];
        if (same && together) tp++;
        else if (together) fp++;
        else if (same) fn++;
      }
      return { order, profiles: profiles.length, precision: round(tp + fp > 0 ? tp / (tp + fp) : 1, 3), recall: round(tp / (tp + fn), 3) };
    });
    for (const o of orders) options.log?.(`cross-file (${o.order}): ${o.profiles} profiles, precision ${o.precision}, recall ${o.recall}`);

    // A long file: the dialogs over and over, up to the minutes asked for.
    const one = standard.map((d) => d.truth.file);
    const oneS = standard.reduce((s, d) => s + d.truth.durationS, 0);
    const repeats = Math.max(1, Math.ceil((options.minutes * 60) / oneS));
    const long = path.join(dir, 'long.wav');
    execFileSync('sox', [...Array.from({ length: repeats }, () => one).flat(), long]);
    const started = process.hrtime.bigint();
    const record = await diarizeFile(long, models, DEFAULT_DIARIZE);
    const wallS = Number(process.hrtime.bigint() - started) / 1e9;
    const cpus = os.cpus();
    const speed = {
      mediaS: round(record.durationS, 1), wallS: round(wallS, 1), realTimeFactor: round(wallS / record.durationS, 3),
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024), cpus: cpus.length, cpuModel: cpus[0]?.model ?? 'unknown',
    };
    options.log?.(`long file: ${speed.mediaS} s in ${speed.wallS} s, ${record.clusters.length} speakers`);
    return { threshold: DEFAULT_DIARIZE.threshold, matchThreshold: DEFAULT_MATCH_THRESHOLD, dialogs, crossFile: { files: files.length, orders }, speed };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits;
