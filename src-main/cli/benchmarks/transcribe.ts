// The transcription benchmark: WER through Backlot and real-time factor of one transcription engine
// on the LibriVox recordings (src-main/bench/transcribe-bench.ts, docs/benchmarks.md "Transcription").
import { CliUsageError, numberFlag } from '../args';
import { benchTranscribe } from '../../bench/transcribe-bench';
import { benchPublisher, PUBLISHER_BENCH_FORMATS, type PublisherBenchFormat } from '../../bench/publisher-bench';
import { POCKETSPHINX_DECODERS, type PocketsphinxDecoder, type SettingsValues } from '../../../src-shared/settings/settings-schema';
import { print, type Benchmark } from './types';

export const transcribeBench: Benchmark = {
  name: 'transcribe',
  usage: 'transcribe --engine pocketsphinx|whisper.cpp|whisper.cpp-cpu|publisher-transcript [--decoder auto|wheel-decoder|debian-decoder-wheel-model|debian-decoder] [--model ID] [--format vtt|srt|json|text] [--data DIR] [--passes N]',
  async run(values) {
    if (values.engine === 'publisher-transcript') {
      const format = values.format ?? 'vtt';
      if (!(PUBLISHER_BENCH_FORMATS as readonly string[]).includes(format)) throw new CliUsageError(`--format must be one of ${PUBLISHER_BENCH_FORMATS.join(', ')}.`);
      const r = await benchPublisher(format as PublisherBenchFormat, Math.floor(numberFlag(values.passes, 'passes', 1)));
      print(values, r, () => [
        `${r.engine} (${r.format}, each LibriVox reference offered as the publisher's transcript over loopback HTTP)`,
        `WER ${r.wer.percent}% against the publisher's text (${r.wer.errors} errors in ${r.wer.words} words, ${r.recordings} recordings, ${r.mediaS} s of speech); ${r.estimatedWords} words with estimated times`,
        `per item: fetch ${r.fetchMsMean} ms, convert ${r.convertMsMean} ms, whole job ${r.jobWallMsMean} ms (process start included) on ${r.cores} x ${r.cpus}, load average ${r.loadAverage}`,
      ].join('\n'));
      return;
    }
    if (values.format !== undefined) throw new CliUsageError('--format is for --engine publisher-transcript.');
    const settings: Partial<SettingsValues> = {};
    if (values.decoder !== undefined) {
      if (!(POCKETSPHINX_DECODERS as readonly string[]).includes(values.decoder)) throw new CliUsageError(`--decoder must be one of ${POCKETSPHINX_DECODERS.join(', ')}.`);
      settings['transcribe.pocketsphinxDecoder'] = values.decoder as PocketsphinxDecoder;
    }
    if (values.model !== undefined) settings['transcribe.whisperModel'] = values.model;
    const r = await benchTranscribe({
      engine: values.engine ?? 'pocketsphinx', settings, ...(values.data ? { dataDir: values.data } : {}),
      passes: Math.floor(numberFlag(values.passes, 'passes', 1)),
    });
    print(values, r, () => [
      `${r.engine} (${r.decoder}; model ${r.model})`,
      `WER ${r.wer.percent}% (${r.wer.errors} errors in ${r.wer.words} words, ${r.recordings} LibriVox recordings, ${r.mediaS} s of speech)`,
      ...r.perRecording.map((p) => `  ${p.id}: ${p.errors}/${p.words}  ${p.hypothesis}`),
      `first job ${r.firstJobS} s (model load included); real-time factor with the model loaded ${r.rtfWarm} (wall seconds per second of media) on ${r.cores} x ${r.cpus}, load average ${r.loadAverage}`,
      `CPU time with the model loaded: ${r.cpuPerMediaSecondWarm ?? 'n/a'} CPU seconds per second of media (the engine's processes)`,
    ].join('\n'));
  },
};
