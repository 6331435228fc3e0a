// How an engine whose output is a transcript record commits it (docs/transcripts.md "Writers"): the
// record is read and validated before the transaction, and handed as a `transcript` record plan
// that the settle step indexes inside it, so the sidecar, its work row and its search rows commit
// together or not at all. The transcribe engines and attribute-words (word-turn-merge) return this
// from their adapter's commit().
import path from 'node:path';
import type { CommitPlan, JobContext } from './adapter';
import type { EngineSuccess } from './runner';
import { BacklotError } from '../../src-shared/errors';
import { readTranscriptFile } from '../transcripts/current-transcript';
import type { TranscriptOperation } from '../transcripts/search-index';

export function transcriptCommitPlan(job: JobContext, outcome: EngineSuccess, operation: TranscriptOperation, outputName = 'transcript'): CommitPlan {
  const item = job.item;
  if (!item) throw new BacklotError('OUTPUT_COMMIT_INVALID', `A ${operation} output belongs to an item, and this job has none.`);
  const index = outcome.outputs.findIndex((o) => o.name === outputName);
  if (index < 0) throw new BacklotError('OUTPUT_MISSING', `The ${operation} engine reported no "${outputName}" output.`, { item: item.id });
  const finals = outcome.outputs.map((o) => path.join(job.defaultOutputDir, path.basename(o.path)));
  // Before the transaction: the database is never held while a file is read and parsed.
  const record = readTranscriptFile(outcome.outputs[index].path, item.id);
  return {
    finals,
    recordedPath: finals[index],
    plans: [{ kind: 'transcript', itemId: item.id, operation, path: finals[index], record }],
  };
}
