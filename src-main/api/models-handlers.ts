// The handlers of the models methods (src-shared/api/models-contract.ts): the catalog with what is
// installed and what is installing, an install that runs in the host and is announced as
// `models-changed` while it moves, and remove. The first-run suggestion is decided by
// src-shared/models/model-suggestion.ts from this machine's GPU and cores (docs/window.md "Models").
import os from 'node:os';
import path from 'node:path';
import type { ApiHandlers } from '../../src-shared/api/contract';
import type { ModelEntryDto } from '../../src-shared/api/models-contract';
import type { CatalogModel } from '../../src-shared/models/model-catalog';
import { suggestModel } from '../../src-shared/models/model-suggestion';
import { BacklotError } from '../../src-shared/errors';
import type { Host } from '../host/host';
import type { SettingsStore } from '../settings/settings-store';
import { detectGpus } from '../gates/gpu';
import { availableModels, modelCatalog, modelsDirOf, removeModel, requireCatalogModel } from '../models/index';
import { ModelInstalls } from '../models/model-installs';

/**
 * The test seam for the first-run suggestion (docs/window.md "Models"): the count of cores the rule
 * is judged on, so a browser test on a two-core machine can see the card. Unset: this machine's.
 */
export const SUGGEST_CORES_ENV = 'BACKLOT_SUGGEST_CORES';

function coresOf(env: NodeJS.ProcessEnv): number {
  const given = Number(env[SUGGEST_CORES_ENV]);
  return Number.isInteger(given) && given > 0 ? given : os.availableParallelism();
}

type ModelMethods = 'models.available' | 'models.install' | 'models.remove';

export interface ModelHandlerOptions {
  /** Whether this machine has a usable GPU; default: src-main/gates/gpu.ts's detection, asked once. */
  gpu?: () => Promise<boolean>;
  cores?: () => number;
}

export function createModelHandlers(host: Host, settings: SettingsStore, options: ModelHandlerOptions = {}): Pick<ApiHandlers, ModelMethods> {
  const modelsDir = () => modelsDirOf(path.dirname(host.db.name));
  // The catalog is read on each call: the test seam's file (docs/models.md "Testing") is data, not code.
  const catalog = () => modelCatalog();
  const installs = new ModelInstalls({ modelsDir, baseUrl: () => settings.get('models.baseUrl'), catalog, changed: () => host.emit('models-changed') });
  let gpu: Promise<boolean> | null = null;
  const hasGpu = () => (gpu ??= options.gpu ? options.gpu() : detectGpus().then((r) => r.usable.length > 0));
  const cores = options.cores ?? (() => coresOf(process.env));

  const entryOf = (m: CatalogModel & { installed: boolean }): ModelEntryDto => ({
    name: m.name, id: m.id, engine: m.engine, languages: [...m.languages], approxBytes: m.approxBytes, goodFor: m.goodFor,
    installed: m.installed && !installs.isRunning(m.name), install: installs.stateOf(m.name),
  });
  const entry = (name: string): ModelEntryDto => {
    const found = availableModels(modelsDir(), catalog()).find((m) => m.name === name);
    if (!found) throw new BacklotError('MODEL_UNKNOWN', `There is no model "${name}" in the catalog.`, { name });
    return entryOf(found);
  };

  return {
    'models.available': async () => {
      const models = availableModels(modelsDir(), catalog()).map(entryOf);
      // One being installed stays suggested, so the first-run card keeps showing its progress.
      const installed = new Set(models.filter((m) => m.installed).map((m) => m.name));
      return { models, suggestion: suggestModel({ gpu: await hasGpu(), cores: cores(), installed }) };
    },

    // Answers once the install has started; its progress and its end come as models-changed.
    'models.install': ({ name }) => {
      const model = requireCatalogModel(name, catalog());
      installs.clear(model.name);
      void installs.start(model.name);
      return { model: entry(model.name) };
    },

    'models.remove': ({ name }) => {
      const model = requireCatalogModel(name, catalog());
      if (installs.isRunning(model.name)) {
        throw new BacklotError('MODEL_INSTALLING', `The model "${model.name}" is being installed; remove it once the install has finished.`, { name: model.name });
      }
      installs.clear(model.name);
      removeModel(modelsDir(), model.id);
      host.emit('models-changed');
      return { model: entry(model.name) };
    },
  };
}
