// Shared by the speaker tests: the installed models, a temp dir per test file, and media made at
// test time with sox, espeak-ng and ffmpeg (docs/speakers.md "Tests").
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadXVectorModel, type XVectorModel } from '../../src-main/speakers/xvector/extractor';
import type { DiarizeModels } from '../../src-main/speakers/diarize/diarize';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const XVECTOR_DIR = path.join(ROOT, 'resources', 'models', 'vosk-model-spk-0.4');
export const VAD_MODEL = path.join(ROOT, 'resources', 'models', 'silero-vad', 'silero_vad.onnx');

let model: XVectorModel | null = null;
export function xvectorModel(): XVectorModel {
  model ??= loadXVectorModel(XVECTOR_DIR);
  return model;
}

export function diarizeModels(): DiarizeModels {
  return { xvector: xvectorModel(), vadModelFile: VAD_MODEL, modelName: 'vosk-model-spk-0.4', engineId: 'vosk-xvector' };
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `backlot-${prefix}-`));
}

/** espeak-ng speech resampled to 16 kHz mono WAV. */
export function espeak(voice: string, text: string, file: string): string {
  const raw = `${file}.22k.wav`;
  execFileSync('espeak-ng', ['-v', voice, '-w', raw, text]);
  execFileSync('sox', [raw, '-r', '16000', '-c', '1', '-b', '16', file]);
  fs.rmSync(raw);
  return file;
}

export function silence(seconds: number, file: string): string {
  execFileSync('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', file, 'trim', '0', String(seconds)]);
  return file;
}

export function join(files: string[], out: string): string {
  execFileSync('sox', [...files, out]);
  return out;
}
