// `transcripts.source = both` (docs/transcripts.md "Settings"): one transcribe unit makes the
// source's transcript and a local one. The source's is the item's transcript (search, the viewer,
// exports, attribution read it); pocketsphinx's is kept beside it as `transcript.local.json`. Both
// programs run one after the other in this unit's slot, as child processes; when the source's
// cannot be had, the local one is the item's transcript and the refusal is remembered. The unit's
// outcome says so itself (`metadata.both`), as data its commit reads.
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { CommitPlan, EngineLaunch, InProcessIo, JobContext, RecordPlan } from '../adapter';
import { runEngine, type EngineCommand, type EngineFailure, type EngineOutcome, type EngineSuccess } from '../runner';
import type { EngineOutput } from '../../../src-shared/protocol/engine-lines';
import { transcriptCommitPlan } from '../transcript-commit';
import { checkpointPlans, mediaOf, transcribeJobInput } from '../transcribe-kit/transcribe-adapter';
import { pocketsphinxJobFingerprint, POCKETSPHINX_ID, sphinxVariant } from '../pocketsphinx/adapter';
import { engineProgram } from '../program-file';
import { nodeProgram } from '../program-command';
import { logLine } from '../../../src-shared/runs/log-keys';
import { progressMessage } from '../../../src-shared/runs/progress-keys';

export const LOCAL_TRANSCRIPT_FILE = 'transcript.local.json';
const TRANSCRIPT_FILE = 'transcript.json';

/** What a `both` unit's outcome carries in its metadata: the source half's refusal code, or null when it delivered. */
export interface BothRan {
  sourceRefusal: string | null;
}

/** The `both` mark on a unit's outcome; null when the unit did not run as `both` (its commit is then not bothCommit). */
export function ranAsBoth(outcome: EngineSuccess): BothRan | null {
  const both = outcome.metadata.both as Partial<BothRan> | undefined;
  if (typeof both !== 'object' || both === null) return null;
  return { sourceRefusal: typeof both.sourceRefusal === 'string' ? both.sourceRefusal : null };
}

/** The outcome marked as a `both` unit's, with what its source half ended with. */
function markBoth(outcome: EngineSuccess, sourceRefusal: string | null): EngineSuccess {
  const both: BothRan = { sourceRefusal };
  return { ...outcome, metadata: { ...outcome.metadata, both } };
}

/** Whether `both` can keep a local transcript here: the item has media and a pocketsphinx decoder is installed. */
export async function canKeepLocal(job: JobContext): Promise<boolean> {
  return mediaOf(job) !== null && (await sphinxVariant(job.env)) !== null;
}

export async function bothLaunch(job: JobContext, source: (outputDir: string, io: InProcessIo) => Promise<EngineOutcome>): Promise<EngineLaunch> {
  const variant = await sphinxVariant(job.env);
  const fingerprint = await pocketsphinxJobFingerprint(job.env);
  const localCommand: EngineCommand = nodeProgram(engineProgram(POCKETSPHINX_ID));
  return {
    kind: 'in-process',
    run: async (io) => {
      const sourceDir = path.join(job.outputDir, 'source');
      const localDir = path.join(job.outputDir, 'local');
      await Promise.all([fsp.mkdir(sourceDir), fsp.mkdir(localDir)]);
      io.progress(0, progressMessage('fetchingSourceTranscript'));
      const fromSource = await source(sourceDir, io);
      if (io.signal.aborted) return cancelled();
      io.log('info', fromSource.ok ? logLine('sourceConverted') : logLine('sourceMissing', { code: fromSource.code }));
      const local = await runEngine(localCommand, {
        jobId: `${job.jobId}-local`, operation: job.operation, outputDir: localDir,
        input: transcribeJobInput(job, POCKETSPHINX_ID, fingerprint, { decoder: variant }),
      }, {
        signal: io.signal, stallTimeoutMs: job.env.settings['engines.stallTimeoutS'] * 1000,
        onProgress: (p) => io.progress(p.ratio, p.message), onLog: (e) => io.log(e.level, e),
      });
      // A unit's outputs lie in one folder (commit-output.ts): each kept file moves up into the job's.
      const hoist = async (o: EngineOutput, name: string, file: string): Promise<EngineOutput> => {
        const to = path.join(job.outputDir, file);
        await fsp.rename(o.path, to);
        return { name, path: to, bytes: o.bytes };
      };
      const transcriptOf = (r: EngineSuccess) => r.outputs.find((o) => o.name === 'transcript')!;
      if (!local.ok) {
        // Without the local half the unit still has the source's transcript; without either it failed.
        if (!fromSource.ok) return local;
        io.log('warn', logLine('localFailed', { code: local.code }));
        return markBoth({ ...fromSource, outputs: [await hoist(transcriptOf(fromSource), 'transcript', TRANSCRIPT_FILE)] }, null);
      }
      if (!fromSource.ok) {
        return markBoth({ ...local, outputs: [await hoist(transcriptOf(local), 'transcript', TRANSCRIPT_FILE)] }, fromSource.code);
      }
      const outputs = [await hoist(transcriptOf(fromSource), 'transcript', TRANSCRIPT_FILE), await hoist(transcriptOf(local), 'transcript-local', LOCAL_TRANSCRIPT_FILE)];
      return markBoth({ ...fromSource, outputs }, null);
    },
  };
}

function cancelled(): EngineFailure {
  return { ok: false, code: 'ENGINE_CANCELLED', params: {}, diagnostic: '', logs: [] };
}

/**
 * The unit's commit: the item's transcript and its search rows; when the source refused, the
 * refusal remembered (`remember`); then the local checkpoint cleared, all in the settle transaction.
 */
export async function bothCommit(job: JobContext, outcome: EngineSuccess, ran: BothRan, remember: (code: string) => RecordPlan[]): Promise<CommitPlan> {
  const plan = transcriptCommitPlan(job, outcome, 'transcribe');
  const fingerprint = await pocketsphinxJobFingerprint(job.env);
  const refusal = ran.sourceRefusal;
  const extra = refusal === null ? [] : remember(refusal);
  return { ...plan, plans: [...(plan.plans ?? []), ...extra, ...checkpointPlans(job, fingerprint)] };
}
