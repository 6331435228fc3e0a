// The speakers' benchmark: diarization on the real two- and three-speaker dialogs, cross-file
// matching precision and recall, real-time factor and memory (docs/benchmarks.md "Speakers").
import { numberFlag } from '../args';
import { benchSpeakers } from '../../bench/speakers-bench';
import { print, type Benchmark } from './types';

export const speakersBench: Benchmark = {
  name: 'speakers',
  usage: 'speakers [--minutes M]',
  async run(values) {
    const r = await benchSpeakers({ minutes: numberFlag(values.minutes, 'minutes', 10), log: values.json ? undefined : (line) => process.stderr.write(`${line}\n`) });
    print(values, r, () => [
      `diarization (vosk-xvector, threshold ${r.threshold}) on the pocketsphinx-testdata dialogs:`,
      ...r.dialogs.map((d) => `  ${d.name.padEnd(16)} ${d.durationS.toFixed(1).padStart(5)} s  speakers ${d.speakersFound}/${d.speakers}  right ${(100 * d.correctShare).toFixed(1)}%  speech covered ${(100 * d.coverage).toFixed(0)}%`),
      `cross-file matching (threshold ${r.matchThreshold}) over ${r.crossFile.files} recordings, all pairs:`,
      ...r.crossFile.orders.map((o) => `  ${o.order.padEnd(10)} ${o.profiles} profiles  precision ${o.precision}  recall ${o.recall}`),
      `speed: ${r.speed.mediaS} s of media in ${r.speed.wallS} s (real-time factor ${r.speed.realTimeFactor}), peak RSS ${r.speed.peakRssMb} MB, ${r.speed.cpus} x ${r.speed.cpuModel}`,
    ].join('\n'));
  },
};
