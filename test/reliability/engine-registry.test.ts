// The test engine profile the reliability tests stand on: without a usable GPU its GPU operations
// run on their CPU engines (so the whole pipeline runs on CI), its faults reach exactly the job
// they name, and the production profile is left as it was.
import { describe, expect, it } from 'vitest';
import { createEngineRegistry } from '../../src-main/dispatch/engine-registry';

const noGpu = { slots: 0, reason: 'No graphics controller was found.' };
const oneGpu = { slots: 1, reason: null };
const lanes = (r: ReturnType<typeof createEngineRegistry>) => Object.fromEntries(r.bindings.map((b) => [b.operation, `${b.lane}:${b.engineId}`]));

describe('engine registry, test profile', () => {
  it('binds GPU operations to their CPU engines when there is no GPU, and to the GPU when there is', () => {
    expect(lanes(createEngineRegistry('test', noGpu))).toMatchObject({ transcribe: 'cpu:pocketsphinx', diarize: 'cpu:sherpa-onnx-cpu', digest: expect.stringMatching(/^cpu:/) });
    expect(lanes(createEngineRegistry('test', oneGpu))).toMatchObject({ transcribe: 'gpu:whisper.cpp', diarize: 'gpu:sherpa-onnx-gpu' });
    expect(createEngineRegistry('test', noGpu).bindings.every((b) => b.preflight.ok)).toBe(true);
  });

  it('merges a fault into the job it names only, the operation-specific entry over the item one', () => {
    const r = createEngineRegistry('test', noGpu, { chunkMs: 5, faults: { i1: { crash: 1, chunks: 2 }, 'transcribe:i1': { crash: 0 }, 'diarize:i2': { hang: 1 } } });
    const b = r.bindings.find((x) => x.operation === 'transcribe')!;
    const d = r.bindings.find((x) => x.operation === 'diarize')!;
    expect(r.program(b, { operation: 'transcribe', itemId: 'i1' }).input).toEqual({ bytes: 4096, chunks: 2, chunkMs: 5, crash: 0 });
    expect(r.program(d, { operation: 'diarize', itemId: 'i1' }).input).toEqual({ bytes: 4096, chunks: 2, chunkMs: 5, crash: 1 });
    expect(r.program(d, { operation: 'diarize', itemId: 'i2' }).input).toEqual({ bytes: 4096, chunks: 4, chunkMs: 5, hang: 1 });
    expect(r.program(b, { operation: 'transcribe', itemId: 'i2' }).input).toEqual({ bytes: 4096, chunks: 4, chunkMs: 5 });
  });

  it('leaves the production profile as it was: GPU work fails its preflight without a GPU, no program runs', () => {
    const r = createEngineRegistry('production', noGpu);
    const t = r.bindings.find((x) => x.operation === 'transcribe')!;
    expect(t).toMatchObject({ lane: 'gpu', preflight: { ok: false, code: 'NO_USABLE_GPU' } });
    expect(() => r.program(t, { operation: 'transcribe', itemId: 'i1' })).toThrow(/has no program/);
  });
});
