// The local LLM digest engine (docs/digests.md "Local LLM digest"): a user-supplied GGUF model run by
// node-llama-cpp, on the gpu lane where there is a usable GPU and on the cpu lane otherwise, as a
// long-lived worker that keeps the model loaded. Optional: its preflight refuses clearly when the
// binding is not installed (ENGINE_NOT_INSTALLED) or no model is there (MODEL_MISSING).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { engineProgram } from '../program-file';
import type { EngineAdapter, EngineEnvironment } from '../adapter';
import { nodeProgram } from '../program-command';
import { findGgufModel } from '../../digest/local-model';
import { PROMPT_VERSION } from '../../digest/remote/prompt';
import { digestFailure } from '../../digest/failures';

const PROGRAM = engineProgram('llama-cpp');
export const LLAMA_CPP_ID = 'llama-cpp';
/** Pinned in package.json (optionalDependencies); docs/decisions.md "Local LLM digest". */
export const NODE_LLAMA_CPP_VERSION = '3.21.1';

/** Where node-llama-cpp is installed (its package.json), or null: found, never loaded, in the host. */
export function nodeLlamaCppPackage(): string | null {
  // Its exports map hides package.json from require.resolve: look along the module search path.
  for (const dir of createRequire(import.meta.url).resolve.paths('node-llama-cpp') ?? []) {
    const file = path.join(dir, 'node-llama-cpp', 'package.json');
    if (fs.existsSync(file)) return file;
  }
  return null;
}

function modelOf(env: EngineEnvironment) {
  return findGgufModel(env.modelsDir, env.settings['digest.llama.model']);
}

export function llamaCppAdapterWith(resolvePackage: () => string | null = () => nodeLlamaCppPackage()): EngineAdapter {
  return {
    id: LLAMA_CPP_ID,
    operation: 'digest',
    profile: 'production',
    lane: (env) => env.gpu.slots > 0 ? { queueKey: 'gpu', contendsFor: ['gpu'] } : { queueKey: 'cpu', contendsFor: ['cpu'] },
    cost: (env) => env.gpu.slots > 0 ? { secondsFixed: 10, secondsPerMediaSecond: 0.02 } : { secondsFixed: 20, secondsPerMediaSecond: 0.2 },
    fingerprint: (env) => {
      const m = modelOf(env);
      const size = m.ok ? fs.statSync(m.file).size : 0;
      return `${PROMPT_VERSION};model=${m.ok ? path.basename(m.file) : ''}:${size};s=${env.settings['digest.summarySentences']};m=${env.settings['digest.moments']};ctx=${env.settings['digest.remote.contextTokens']}`;
    },
    preflight: (env) => {
      if (resolvePackage() === null) {
        return Promise.resolve({ ok: false, code: 'ENGINE_NOT_INSTALLED', message: `The local LLM digest needs node-llama-cpp ${NODE_LLAMA_CPP_VERSION} (an optional dependency), which is not installed.` });
      }
      const m = modelOf(env);
      return Promise.resolve(m.ok ? { ok: true } : { ok: false, code: m.code, message: m.message });
    },
    launch: (job) => {
      const m = modelOf(job.env);
      const s = job.env.settings;
      return {
        kind: 'worker',
        key: m.ok ? m.file : 'none',
        command: nodeProgram(PROGRAM),
        input: {
          transcript: job.inputs['attribute-words'] ?? '',
          item: job.item?.id ?? '',
          model: m.ok ? m.file : '',
          modelName: m.ok ? path.basename(m.file, '.gguf') : '',
          contextTokens: s['digest.remote.contextTokens'],
          maxOutputTokens: s['digest.remote.maxOutputTokens'],
          summarySentences: s['digest.summarySentences'],
          moments: s['digest.moments'],
        },
      };
    },
    failure: (_job, failure) => failure.code === 'ENGINE_NOT_INSTALLED'
      ? { disposition: 'requeue', preflight: { ok: false, code: failure.code, message: 'node-llama-cpp could not be loaded.' } }
      : digestFailure(failure),
  };
}

export const llamaCppAdapter: EngineAdapter = llamaCppAdapterWith();
