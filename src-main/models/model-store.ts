// The installed models of a library (`<data>/models/`, docs/transcription.md "Model manager"): one
// folder per model id holding the file and its manifest. A model counts as installed only once its
// manifest is written, and the manifest is written last, after the verified file is in place.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { BacklotError } from '../../src-shared/errors';

export const MANIFEST_NAME = 'model.json';
/** Where unfinished downloads wait to be resumed; never read as an installed model. */
export const PARTIAL_DIR_NAME = '.partial';
const MODEL_ID = /^[a-z0-9][a-z0-9._-]{0,99}$/;
const SHA256 = /^[0-9a-f]{64}$/;

const manifestSchema = z.object({
  id: z.string().regex(MODEL_ID),
  file: z.string().min(1),
  sha256: z.string().regex(SHA256),
  bytes: z.number().int().nonnegative(),
  source: z.string(),
  installedAt: z.string(),
}).strict();

export type ModelManifest = z.infer<typeof manifestSchema>;

/** An installed model: its manifest plus the absolute path of its file. */
export interface InstalledModel extends ModelManifest {
  path: string;
}

export function modelsDirOf(dataDir: string): string {
  return path.join(dataDir, 'models');
}

export function checkModelId(id: string): string {
  if (!MODEL_ID.test(id) || id.includes('..')) {
    throw new BacklotError('MODEL_ID_INVALID', `"${id}" is not a model id: use lower-case letters, digits, dots, dashes and underscores.`, { id });
  }
  return id;
}

export function checkSha256(sha: string): string {
  const lower = sha.trim().toLowerCase();
  if (!SHA256.test(lower)) throw new BacklotError('MODEL_SHA256_INVALID', `"${sha}" is not a SHA-256 checksum (64 hexadecimal digits).`, { sha256: sha });
  return lower;
}

/** A model id from a file name: `ggml-base.en.bin` → `ggml-base.en`. */
export function modelIdFromFileName(name: string): string {
  const base = path.basename(name).replace(/\.(bin|gguf|onnx|tar\.bz2|tar\.gz|zip)$/i, '').toLowerCase().replace(/[^a-z0-9._-]/g, '-').replace(/^[^a-z0-9]+/, '');
  return checkModelId(base || 'model');
}

export function modelDir(modelsDir: string, id: string): string {
  return path.join(modelsDir, checkModelId(id));
}

/**
 * The installed model `id`, or null: the manifest must be valid and its file present at its
 * recorded size. This is the one question engines ask (their preflight and fingerprint).
 */
export function installedModel(modelsDir: string, id: string): InstalledModel | null {
  let dir: string;
  try { dir = modelDir(modelsDir, id); } catch { return null; }
  let manifest: ModelManifest;
  try {
    manifest = manifestSchema.parse(JSON.parse(fs.readFileSync(path.join(dir, MANIFEST_NAME), 'utf8')));
  } catch {
    return null;
  }
  if (manifest.id !== id || path.basename(manifest.file) !== manifest.file) return null;
  const file = path.join(dir, manifest.file);
  try {
    const s = fs.statSync(file);
    if (!s.isFile() || s.size !== manifest.bytes) return null;
  } catch {
    return null;
  }
  return { ...manifest, path: file };
}

/** Every installed model, by id. Folders without a valid manifest (a removal cut short) are skipped. */
export function listModels(modelsDir: string): InstalledModel[] {
  let names: string[];
  try { names = fs.readdirSync(modelsDir); } catch { return []; }
  return names.filter((n) => n !== PARTIAL_DIR_NAME && MODEL_ID.test(n)).sort()
    .map((n) => installedModel(modelsDir, n)).filter((m): m is InstalledModel => m !== null);
}

/**
 * Moves a verified file into place and writes its manifest last (both durably), so a crash at any
 * instant leaves the model either absent or installed, never half. Replaces an earlier install.
 */
export function installVerifiedFile(modelsDir: string, manifest: Omit<ModelManifest, 'installedAt'>, verifiedFile: string, now = new Date()): InstalledModel {
  const dir = modelDir(modelsDir, manifest.id);
  fs.mkdirSync(dir, { recursive: true });
  // The old manifest goes first: from here until the new one is written the model is absent.
  fs.rmSync(path.join(dir, MANIFEST_NAME), { force: true });
  for (const name of fs.readdirSync(dir)) if (name !== manifest.file) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  const final = path.join(dir, manifest.file);
  fs.renameSync(verifiedFile, final);
  const full: ModelManifest = { ...manifest, installedAt: now.toISOString() };
  writeDurably(path.join(dir, MANIFEST_NAME), `${JSON.stringify(full, null, 2)}\n`);
  fsyncDir(dir);
  return { ...full, path: final };
}

/** Removes an installed model (manifest first, so a cut-short removal leaves it absent). */
export function removeModel(modelsDir: string, id: string): InstalledModel {
  const model = installedModel(modelsDir, id);
  if (!model) throw new BacklotError('MODEL_NOT_INSTALLED', `No model "${id}" is installed.`, { id });
  const dir = modelDir(modelsDir, id);
  fs.rmSync(path.join(dir, MANIFEST_NAME), { force: true });
  fsyncDir(dir);
  fs.rmSync(dir, { recursive: true, force: true });
  return model;
}

/** What an engine's fingerprint says about a model: its id and checksum, or that it is absent. */
export function modelFingerprint(modelsDir: string, id: string): string {
  const m = installedModel(modelsDir, id);
  return m ? `${id}:${m.sha256.slice(0, 16)}` : `${id}:absent`;
}

export function writeDurably(file: string, text: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

export function fsyncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try { fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
  } catch {
    // Some platforms (Windows) cannot open a directory; the rename is still atomic there.
  }
}
