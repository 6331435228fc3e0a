// One of the preview's two simulations off the host's thread: a large library takes seconds to
// simulate, and the host keeps answering the window and dispatching work meanwhile (docs/window.md
// "Preview"). The first worker seeds the library and keeps a copy; the second starts from that copy.
import { parentPort, workerData } from 'node:worker_threads';
import { previewOutcome, type PreviewScenario } from './preview';

export interface PreviewJob {
  built: PreviewScenario;
  tree: unknown;
  seededFrom?: string;
  keepSeeded?: string;
}

export type PreviewWorkerMessage =
  | { type: 'seeded' }
  | { type: 'progress'; picks: number }
  | { type: 'done'; outcome: ReturnType<typeof previewOutcome> }
  | { type: 'refused'; message: string; field: string | null };

const job = workerData as PreviewJob;
const post = (m: PreviewWorkerMessage) => parentPort!.postMessage(m);
try {
  const outcome = previewOutcome(job.built, job.tree, {
    ...(job.seededFrom !== undefined ? { seededFrom: job.seededFrom } : {}),
    ...(job.keepSeeded !== undefined ? { keepSeeded: job.keepSeeded, onSeeded: () => post({ type: 'seeded' }) } : {}),
    onProgress: (picks) => post({ type: 'progress', picks }),
  });
  post({ type: 'done', outcome });
} catch (e) {
  post({ type: 'refused', message: (e as Error)?.message ?? String(e), field: (e as { field?: string }).field ?? null });
}
