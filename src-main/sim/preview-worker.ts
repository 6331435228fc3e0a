// The preview's simulations off the host's thread: a large library takes seconds to simulate, and
// the host keeps answering the window and dispatching work meanwhile (docs/window.md "Preview").
import { parentPort, workerData } from 'node:worker_threads';
import { previewOutcome, type PreviewScenario } from './preview';

interface Job {
  built: PreviewScenario;
  current: unknown;
  edited: unknown;
}

const job = workerData as Job;
try {
  const t0 = performance.now();
  const current = previewOutcome(job.built, job.current);
  const edited = previewOutcome(job.built, job.edited);
  parentPort!.postMessage({ ok: true, result: { library: job.built.library, current, edited, wallMs: Math.round(performance.now() - t0) } });
} catch (e) {
  parentPort!.postMessage({ ok: false, message: (e as Error)?.message ?? String(e), field: (e as { field?: string }).field ?? null });
}
