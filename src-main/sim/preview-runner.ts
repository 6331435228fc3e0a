// Runs the what-if preview in two worker threads, one tree each, and answers with both outcomes, or
// refuses a tree the simulator cannot take with the field it names. In memory (sim/fast) both start
// at once; on the real host the library is seeded once: the stored tree's worker keeps a copy of it,
// and the edited tree's worker starts from that copy, so the two simulations run side by side
// (docs/benchmarks.md "What-if preview").
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtMainFile } from '../system/app-layout';
import type { PreviewOutcomeDto, PreviewResultDto } from '../../src-shared/api/window-contract';
import { BacklotError } from '../../src-shared/errors';
import { previewRunsInMemory, type PreviewScenario } from './preview';
import type { PreviewJob, PreviewWorkerMessage } from './preview-worker';

/** The worker's entry: the built out/main/sim/preview-worker.js, from the sources as from the build. */
function workerEntry(): URL {
  return pathToFileURL(builtMainFile(path.join('sim', 'preview-worker.js')));
}

/** How far a preview is: picks made over the picks both runs are expected to make (never 1 before the end). */
export type PreviewProgress = (ratio: number) => void;

export async function runPreview(built: PreviewScenario, current: unknown, edited: unknown, onProgress?: PreviewProgress): Promise<PreviewResultDto> {
  const t0 = performance.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-preview-'));
  const seeded = path.join(dir, 'seeded.sqlite');
  const workers: Worker[] = [];
  // Each unit still to do is about one pick per tree; the new upload and syncs add a few.
  const expected = Math.max(1, 2 * Object.values(built.toDo).reduce((s, n) => s + n, 0));
  const picks = [0, 0];
  const tell = () => onProgress?.(Math.min(0.99, (picks[0] + picks[1]) / expected));
  const run = (index: number, job: PreviewJob, onSeeded?: () => void) => new Promise<PreviewOutcomeDto>((resolve, reject) => {
    const worker = new Worker(workerEntry(), { workerData: job });
    workers.push(worker);
    let settled = false;
    worker.on('message', (m: PreviewWorkerMessage) => {
      switch (m.type) {
        case 'seeded': onSeeded?.(); return;
        case 'progress': picks[index] = m.picks; tell(); return;
        case 'done': settled = true; resolve(m.outcome); return;
        case 'refused': settled = true; reject(new BacklotError('PREVIEW_INVALID', `The preview cannot run this tree: ${m.message}`, { field: m.field })); return;
      }
    });
    worker.once('error', (e) => {
      if (!settled) reject(new BacklotError('PREVIEW_FAILED', `The preview stopped unexpectedly: ${e.message}`));
      settled = true;
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new BacklotError('PREVIEW_FAILED', `The preview stopped unexpectedly (exit code ${code}).`));
      settled = true;
    });
  });
  try {
    if (previewRunsInMemory(built)) {
      // In memory (sim/fast): nothing to seed or share, so both trees start at once.
      const [a, b] = await Promise.all([run(0, { built, tree: current }), run(1, { built, tree: edited })]);
      onProgress?.(1);
      return { library: built.library, current: a, edited: b, wallMs: Math.round(performance.now() - t0) };
    }
    let editedRun: Promise<PreviewOutcomeDto> | null = null;
    let startEdited: () => void = () => {};
    const editedStarted = new Promise<void>((resolve) => { startEdited = resolve; });
    const currentRun = run(0, { built, tree: current, keepSeeded: seeded }, () => {
      editedRun = run(1, { built, tree: edited, seededFrom: seeded });
      startEdited();
    });
    // The stored tree's run ends before seeding only when it fails; then its error is the answer.
    await Promise.race([editedStarted, currentRun]);
    const [a, b] = await Promise.all([currentRun, editedRun ?? currentRun]);
    onProgress?.(1);
    return { library: built.library, current: a, edited: b, wallMs: Math.round(performance.now() - t0) };
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
