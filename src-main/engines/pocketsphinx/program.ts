// The pocketsphinx engine program: a long-lived worker (EngineLaunch 'worker') that speaks the line
// protocol through the program kit and keeps its decoder, with the model loaded, across jobs. The
// decoder variant arrives in each job (the adapter's preflight chose it); a new one replaces the old.
import { z } from 'zod';
import { serveJobs, EngineJobError } from '../program-kit';
import { parseTranscribeInput, transcribeMedia } from '../transcribe-kit/transcribe-media';
import type { Recognizer } from '../transcribe-kit/recognizer';
import { WheelRecognizer } from './wheel-recognizer';
import { ContinuousRecognizer } from './continuous-recognizer';
import { DECODER_CHOICES, type SphinxVariant } from './variants';
import { logLine } from '../../../src-shared/runs/log-keys';

const variantSchema = z.object({
  kind: z.enum(DECODER_CHOICES.filter((c) => c !== 'auto') as [SphinxVariant['kind'], ...SphinxVariant['kind'][]]),
  label: z.string(),
  program: z.string().min(1),
  version: z.string(),
  model: z.object({ hmm: z.string(), lm: z.string(), dict: z.string() }),
});

let loaded: { key: string; recognizer: Recognizer } | null = null;

async function recognizerFor(variant: SphinxVariant): Promise<Recognizer> {
  const key = JSON.stringify(variant);
  if (loaded && loaded.key === key && (!(loaded.recognizer instanceof WheelRecognizer) || loaded.recognizer.alive)) return loaded.recognizer;
  await loaded?.recognizer.close();
  loaded = null;
  const recognizer = variant.kind === 'wheel-decoder' ? await WheelRecognizer.start(variant) : new ContinuousRecognizer(variant);
  loaded = { key, recognizer };
  return recognizer;
}

serveJobs(async (job, io) => {
  const input = parseTranscribeInput(job.input);
  const variant = variantSchema.safeParse(job.input.decoder);
  if (!variant.success) throw new EngineJobError('ENGINE_BAD_JOB', 'The job names no pocketsphinx decoder.', { field: 'decoder' });
  const fresh = loaded?.key !== JSON.stringify(variant.data);
  const recognizer = await recognizerFor(variant.data);
  io.log('info', logLine(fresh ? 'decoderLoaded' : 'decoderKept', { engine: recognizer.engine }));
  return transcribeMedia(input, recognizer, job.outputDir, io);
});
