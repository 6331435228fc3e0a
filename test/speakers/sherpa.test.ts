// The production diarization path (docs/speakers.md "Better models"): without its models in
// <data>/models/diarization/ the sherpa-onnx engines refuse clearly, both as a preflight and as a
// program given a job anyway; the gpu engine first needs a usable GPU.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sherpaModelPaths, sherpaPreflight } from '../../src-main/speakers/sherpa/sherpa-models';
import { engineProgram } from '../../src-main/engines/program-file';
import { runEngine } from '../../src-main/engines/runner';
import { ROOT, tempDir } from './fixtures';

const dir = tempDir('sherpa');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('sherpa-onnx diarization', () => {
  it('preflight: MODEL_MISSING naming the file and how to add it, then the other file, then ok', () => {
    const models = path.join(dir, 'models');
    const noGpu = { slots: 0, reason: 'No graphics controller with usable compute was found.' };
    expect(sherpaPreflight(models, 'gpu', noGpu)).toEqual({ ok: false, code: 'NO_USABLE_GPU', message: noGpu.reason });
    const missing = sherpaPreflight(models, 'cpu', noGpu);
    expect(missing).toMatchObject({ ok: false, code: 'MODEL_MISSING', params: { model: 'diarization/segmentation.onnx' } });
    expect(!missing.ok && missing.message).toMatch(/backlot models add/);
    const paths = sherpaModelPaths(models);
    fs.mkdirSync(path.dirname(paths.segmentation), { recursive: true });
    fs.writeFileSync(paths.segmentation, 'x');
    expect(sherpaPreflight(models, 'cpu', noGpu)).toMatchObject({ ok: false, code: 'MODEL_MISSING', params: { model: 'diarization/embedding.onnx' } });
    fs.writeFileSync(paths.embedding, 'x');
    expect(sherpaPreflight(models, 'cpu', noGpu)).toEqual({ ok: true });
    expect(sherpaPreflight(models, 'gpu', { slots: 1, reason: null })).toEqual({ ok: true });
  });

  it('the program answers a job without models with MODEL_MISSING, not a crash', async () => {
    const out = fs.mkdtempSync(path.join(dir, 'out-'));
    const outcome = await runEngine({ command: process.execPath, args: [engineProgram('sherpa-onnx-cpu')], cwd: ROOT },
      { jobId: 's1', operation: 'diarize', outputDir: out, input: { media: '/x.wav', modelsDir: path.join(dir, 'empty-models') } });
    expect(outcome).toMatchObject({ ok: false, code: 'MODEL_MISSING' });
  });
});
