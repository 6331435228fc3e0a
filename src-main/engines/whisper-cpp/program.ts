// The whisper.cpp engine program: a long-lived worker (EngineLaunch 'worker') speaking the line
// protocol through the program kit; the loaded model stays loaded across jobs and is replaced only
// when a job names another model, build or device.
import { z } from 'zod';
import { TRANSCRIBE_PROMPT_MAX } from '../../../src-shared/settings/transcribe-choices';
import { serveJobs, EngineJobError } from '../program-kit';
import { parseTranscribeInput, transcribeMedia } from '../transcribe-kit/transcribe-media';
import { WhisperRecognizer, type WhisperSettings } from './whisper-recognizer';
import { logLine } from '../../../src-shared/runs/log-keys';

const whisperSchema = z.object({
  modelPath: z.string().min(1),
  modelId: z.string().min(1),
  build: z.enum(['default', 'cuda', 'vulkan']),
  useGpu: z.boolean(),
  threads: z.number().int().positive(),
  language: z.string().min(1),
  answerTimeoutS: z.number().positive().optional(),
  /** transcribe.prompt as it applies to the job's channel; per job, so not part of what keeps a model loaded. */
  prompt: z.string().max(TRANSCRIBE_PROMPT_MAX).default(''),
});

let loaded: { key: string; recognizer: WhisperRecognizer } | null = null;

async function recognizerFor(settings: WhisperSettings): Promise<{ recognizer: WhisperRecognizer; fresh: boolean }> {
  const key = JSON.stringify(settings);
  if (loaded?.key === key) return { recognizer: loaded.recognizer, fresh: false };
  await loaded?.recognizer.close();
  loaded = null;
  const recognizer = await WhisperRecognizer.load(settings);
  loaded = { key, recognizer };
  return { recognizer, fresh: true };
}

serveJobs(async (job, io) => {
  const input = parseTranscribeInput(job.input);
  const settings = whisperSchema.safeParse(job.input.whisper);
  if (!settings.success) throw new EngineJobError('ENGINE_BAD_JOB', 'The job names no whisper model.', { field: `whisper.${settings.error.issues[0]?.path.join('.') ?? ''}` });
  const { prompt, ...load } = settings.data;
  const { recognizer, fresh } = await recognizerFor(load);
  recognizer.prompt = prompt;
  if (recognizer.fallbackReason) io.log('warn', logLine('buildFallback', { build: settings.data.build, reason: recognizer.fallbackReason }));
  io.log('info', logLine(fresh ? 'decoderModelLoaded' : 'decoderModelKept', { engine: recognizer.engine, model: recognizer.model }));
  return transcribeMedia(input, recognizer, job.outputDir, io);
});
