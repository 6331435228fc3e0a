// `backlot bench transcribe --engine ID`: WER and real-time factor of one transcription engine on
// the LibriVox test set, through Backlot (src-main/bench/transcribe-bench.ts).
import { CliUsageError, numberFlag, parseCommandArgs } from '../args';
import { benchTranscribe } from '../../bench/transcribe-bench';
import { POCKETSPHINX_DECODERS, type PocketsphinxDecoder, type SettingsValues } from '../../../src-shared/settings/settings-schema';

const USAGE = 'backlot bench transcribe --engine pocketsphinx|whisper.cpp|whisper.cpp-cpu [--decoder auto|wheel-decoder|debian-decoder-wheel-model|debian-decoder] [--model ID] [--data DIR] [--passes N] [--json]';
const FLAGS = {
  engine: { type: 'string' },
  decoder: { type: 'string' },
  model: { type: 'string' },
  data: { type: 'string' },
  passes: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export async function benchTranscribeCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, FLAGS, USAGE);
  if (positionals.length > 0) throw new CliUsageError(`bench transcribe takes no positional argument. Usage: ${USAGE}`);
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
  if (values.json) {
    process.stdout.write(`${JSON.stringify(r)}\n`);
    return 0;
  }
  process.stdout.write([
    `${r.engine} (${r.decoder}; model ${r.model})`,
    `WER ${r.wer.percent}% (${r.wer.errors} errors in ${r.wer.words} words, ${r.recordings} LibriVox recordings, ${r.mediaS} s of speech)`,
    ...r.perRecording.map((p) => `  ${p.id}: ${p.errors}/${p.words}  ${p.hypothesis}`),
    `first job ${r.firstJobS} s (model load included); real-time factor with the model loaded ${r.rtfWarm} (wall seconds per second of media) on ${r.cores} x ${r.cpus}, load average ${r.loadAverage}`,
    `CPU time with the model loaded: ${r.cpuPerMediaSecondWarm ?? 'n/a'} CPU seconds per second of media (the engine's processes)`,
  ].join('\n') + '\n');
  return 0;
}
