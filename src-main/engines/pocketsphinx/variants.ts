// Which pocketsphinx this machine has, best first (docs/transcription.md "pocketsphinx"): the 5.1.1
// decoder from the Python wheel in .venv-engines (28.2% WER on the LibriVox test set), Debian's
// pocketsphinx_continuous with the wheel's model files (32.4%), and Debian's binary with Debian's
// model (36.6%). The preflight takes the best one present, or the one the setting names.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { POCKETSPHINX_DECODERS, type PocketsphinxDecoder } from '../../../src-shared/settings/transcribe-choices';
import { enginesVenvDir, venvPython } from '../engine-venv';

export const DECODER_CHOICES = POCKETSPHINX_DECODERS;
export type DecoderChoice = PocketsphinxDecoder;
export type DecoderKind = Exclude<DecoderChoice, 'auto'>;

export interface SphinxModel {
  hmm: string;
  lm: string;
  dict: string;
}

/** A decoder that can run here, with everything its program needs to start it. */
export interface SphinxVariant {
  kind: DecoderKind;
  /** For the record and the logs: `pocketsphinx 5.1.1 (Python wheel)`. */
  label: string;
  /** The python interpreter (wheel-decoder) or the pocketsphinx_continuous binary. */
  program: string;
  version: string;
  model: SphinxModel;
}

export interface SphinxEnvironment {
  venv: string;
  continuous: string;
  debianModel: string;
}

export function defaultSphinxEnvironment(env: NodeJS.ProcessEnv = process.env): SphinxEnvironment {
  return {
    venv: enginesVenvDir(env),
    continuous: env.BACKLOT_POCKETSPHINX_CONTINUOUS ?? '/usr/bin/pocketsphinx_continuous',
    debianModel: env.BACKLOT_POCKETSPHINX_MODEL ?? '/usr/share/pocketsphinx/model/en-us',
  };
}

function modelIn(dir: string, hmmDir: string): SphinxModel | null {
  const m = { hmm: path.join(dir, hmmDir), lm: path.join(dir, 'en-us.lm.bin'), dict: path.join(dir, 'cmudict-en-us.dict') };
  return fs.existsSync(path.join(m.hmm, 'mdef')) && fs.existsSync(m.lm) && fs.existsSync(m.dict) ? m : null;
}

function run(file: string, args: string[]): Promise<{ ok: boolean; stdout: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 30_000, windowsHide: true }, (err, stdout) => resolve({ ok: !err, stdout: String(stdout) }));
  });
}

const PROBE = 'import json, pocketsphinx, importlib.metadata as m; print(json.dumps({"version": m.version("pocketsphinx"), "model": pocketsphinx.get_model_path()}))';

/** Every decoder present here, best first. */
export async function detectVariants(env: SphinxEnvironment = defaultSphinxEnvironment()): Promise<SphinxVariant[]> {
  const found: SphinxVariant[] = [];
  const python = venvPython(env.venv);
  let wheelModel: SphinxModel | null = null;
  if (python) {
    const probe = await run(python, ['-c', PROBE]);
    if (probe.ok) {
      try {
        const info = JSON.parse(probe.stdout.trim().split('\n').at(-1) ?? '') as { version: string; model: string };
        wheelModel = modelIn(path.join(info.model, 'en-us'), 'en-us');
        if (wheelModel) found.push({ kind: 'wheel-decoder', label: `pocketsphinx ${info.version} (Python wheel)`, program: python, version: info.version, model: wheelModel });
      } catch {
        // An interpreter that prints something else has no usable decoder.
      }
    }
    // The wheel's model files serve Debian's binary even where its Python module cannot load.
    wheelModel ??= findWheelModel(env.venv);
  }
  const continuous = fs.existsSync(env.continuous) ? env.continuous : null;
  if (continuous) {
    const version = debianVersion();
    if (wheelModel) found.push({ kind: 'debian-decoder-wheel-model', label: `pocketsphinx_continuous ${version} with the wheel's model`, program: continuous, version, model: wheelModel });
    const debian = modelIn(env.debianModel, 'en-us');
    if (debian) found.push({ kind: 'debian-decoder', label: `pocketsphinx_continuous ${version} with Debian's model`, program: continuous, version, model: debian });
  }
  return found;
}

function findWheelModel(venv: string): SphinxModel | null {
  const lib = path.join(venv, 'lib');
  let pythons: string[];
  try { pythons = fs.readdirSync(lib).filter((n) => n.startsWith('python')); } catch { return null; }
  for (const p of pythons) {
    const m = modelIn(path.join(lib, p, 'site-packages', 'pocketsphinx', 'model', 'en-us'), 'en-us');
    if (m) return m;
  }
  return null;
}

function debianVersion(): string {
  try {
    const status = fs.readFileSync('/var/lib/dpkg/status', 'utf8');
    const m = /Package: pocketsphinx\n(?:[^\n]+\n)*?Version: ([^\n]+)/.exec(status);
    if (m) return m[1];
  } catch {
    // Not a Debian system: the binary still runs.
  }
  return 'unknown';
}

export function chooseVariant(found: readonly SphinxVariant[], choice: DecoderChoice): SphinxVariant | null {
  return choice === 'auto' ? found[0] ?? null : found.find((v) => v.kind === choice) ?? null;
}

const hashes = new Map<string, string>();

/** A short hash of the model's files (cached by path, size and mtime): part of the fingerprint. */
export function modelHash(model: SphinxModel): string {
  const files = [
    ...fs.readdirSync(model.hmm).sort().map((n) => path.join(model.hmm, n)).filter((f) => fs.statSync(f).isFile()),
    model.lm, model.dict,
  ];
  const key = files.map((f) => { const s = fs.statSync(f); return `${f}:${s.size}:${s.mtimeMs}`; }).join('|');
  const cached = hashes.get(key);
  if (cached) return cached;
  const hash = createHash('sha256');
  for (const f of files) hash.update(path.basename(f)).update(fs.readFileSync(f));
  const digest = hash.digest('hex').slice(0, 16);
  hashes.set(key, digest);
  return digest;
}
