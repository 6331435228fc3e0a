// Where the local LLM digest finds its GGUF model: the model manager's model named by the setting
// digest.llama.model (`backlot models add FILE --sha256 HEX --id NAME`), else a `<data>/models/<file>.gguf`
// of that name, or the first .gguf there (docs/digests.md "Local LLM digest").
import fs from 'node:fs';
import path from 'node:path';
import { installedModel } from '../models/index';

/** A model the manager installed under this id, when the id is a valid one. */
function managedModel(modelsDir: string, id: string): string | null {
  try {
    return installedModel(modelsDir, id)?.path ?? null;
  } catch {
    return null;
  }
}

export type ModelLookup =
  | { ok: true; file: string }
  | { ok: false; code: 'MODEL_MISSING' | 'MODEL_INVALID'; message: string };

const GGUF_MAGIC = Buffer.from('GGUF', 'ascii');

export function findGgufModel(modelsDir: string, wanted: string): ModelLookup {
  let file: string | null = null;
  const managed = wanted !== '' ? managedModel(modelsDir, wanted) : null;
  if (managed) {
    file = managed;
  } else if (wanted !== '') {
    if (wanted.includes('/') || wanted.includes('\\') || wanted.startsWith('.')) {
      return { ok: false, code: 'MODEL_INVALID', message: `digest.llama.model must name a file in ${modelsDir}, not a path ("${wanted}").` };
    }
    file = path.join(modelsDir, wanted);
    if (!fs.existsSync(file)) return { ok: false, code: 'MODEL_MISSING', message: `The GGUF model "${wanted}" is not in ${modelsDir}; install it with the model manager or change digest.llama.model.` };
  } else {
    let names: string[] = [];
    try {
      names = fs.readdirSync(modelsDir).filter((n) => n.toLowerCase().endsWith('.gguf')).sort();
    } catch {
      // No models folder yet: the same refusal as an empty one.
    }
    if (names.length === 0) return { ok: false, code: 'MODEL_MISSING', message: `No GGUF model is installed in ${modelsDir}; the local LLM digest needs one (a user-supplied .gguf file, installed by the model manager).` };
    file = path.join(modelsDir, names[0]);
  }
  const head = Buffer.alloc(4);
  try {
    const fd = fs.openSync(file, 'r');
    try { fs.readSync(fd, head, 0, 4, 0); } finally { fs.closeSync(fd); }
  } catch (e) {
    return { ok: false, code: 'MODEL_MISSING', message: `The GGUF model ${path.basename(file)} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'}).` };
  }
  if (!head.equals(GGUF_MAGIC)) return { ok: false, code: 'MODEL_INVALID', message: `${path.basename(file)} is not a GGUF model file.` };
  return { ok: true, file };
}
