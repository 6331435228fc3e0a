// Runs the what-if preview in a worker thread and answers with both outcomes, or refuses a tree
// the simulator cannot take with the field it names.
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { builtMainFile } from '../system/app-layout';
import type { PreviewResultDto } from '../../src-shared/api/window-contract';
import { BacklotError } from '../../src-shared/errors';
import type { PreviewScenario } from './preview';

/** The worker's entry: the built out/main/sim/preview-worker.js, from the sources as from the build. */
function workerEntry(): URL {
  return pathToFileURL(builtMainFile(path.join('sim', 'preview-worker.js')));
}

export function runPreview(built: PreviewScenario, current: unknown, edited: unknown): Promise<PreviewResultDto> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerEntry(), { workerData: { built, current, edited } });
    let settled = false;
    worker.once('message', (m: { ok: true; result: PreviewResultDto } | { ok: false; message: string; field: string | null }) => {
      settled = true;
      if (m.ok) resolve(m.result);
      else reject(new BacklotError('PREVIEW_INVALID', `The preview cannot run this tree: ${m.message}`, { field: m.field }));
      void worker.terminate();
    });
    worker.once('error', (e) => {
      if (!settled) reject(new BacklotError('PREVIEW_FAILED', `The preview stopped unexpectedly: ${e.message}`));
      settled = true;
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new BacklotError('PREVIEW_FAILED', `The preview stopped unexpectedly (exit code ${code}).`));
    });
  });
}
