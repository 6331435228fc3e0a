// Installing a model by its catalog name (docs/models.md): the name picks the entry, the setting
// models.baseUrl picks the host (upstream or a mirror), and the model manager downloads, resumes and
// verifies with the checksum algorithm the entry's source gives.
import fs from 'node:fs';
import { BacklotError } from '../../src-shared/errors';
import {
  MODEL_CATALOG, catalogModel, catalogModelSchema, closeNames, type CatalogModel,
} from '../../src-shared/models/model-catalog';
import { addModel, type AddModelOptions } from './model-install';
import { installedModel, type InstalledModel } from './model-store';

/**
 * The test seam (docs/models.md "Testing"): a JSON file of extra catalog entries, each checked like
 * the built-in ones; tests use it to install a file they made from a loopback mirror, since no one
 * can make a file that matches a published checksum.
 */
export const EXTRA_CATALOG_ENV = 'BACKLOT_MODEL_CATALOG_EXTRA';

/** The built-in catalog plus the entries named by BACKLOT_MODEL_CATALOG_EXTRA, when it is set. */
export function modelCatalog(env: NodeJS.ProcessEnv = process.env): readonly CatalogModel[] {
  const file = env[EXTRA_CATALOG_ENV];
  if (!file) return MODEL_CATALOG;
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new BacklotError('MODEL_CATALOG_INVALID', `${EXTRA_CATALOG_ENV} names ${file}, which is not a readable JSON file (${(e as Error).message}).`, { file });
  }
  const parsed = catalogModelSchema.array().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BacklotError('MODEL_CATALOG_INVALID', `${file} is not a list of catalog entries: ${issue.path.join('.') || 'the list'} ${issue.message}.`, { file });
  }
  const all = [...MODEL_CATALOG, ...parsed.data];
  const dup = all.find((m, i) => all.findIndex((o) => o.name === m.name) !== i);
  if (dup) throw new BacklotError('MODEL_CATALOG_INVALID', `${file} names the model "${dup.name}", which the catalog already has.`, { file, name: dup.name });
  return all;
}

/** The entry's download URL on `baseUrl` (upstream or a mirror with the same paths). */
export function catalogUrl(baseUrl: string, model: CatalogModel): string {
  return new URL(model.path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`).href;
}

export interface AvailableModel extends CatalogModel {
  installed: boolean;
}

export function availableModels(modelsDir: string, catalog: readonly CatalogModel[]): AvailableModel[] {
  return catalog.map((m) => ({ ...m, installed: installedModel(modelsDir, m.id) !== null }));
}

/** The catalog entry for `name`, or MODEL_UNKNOWN with the close names in its one sentence. */
export function requireCatalogModel(name: string, catalog: readonly CatalogModel[]): CatalogModel {
  const model = catalogModel(name, catalog);
  if (model) return model;
  const close = closeNames(name, catalog);
  const hint = close.length > 0 ? `did you mean ${close.join(', ')}?` : 'backlot models available lists them.';
  throw new BacklotError('MODEL_UNKNOWN', `There is no model "${name}" in the catalog; ${hint}`, { name, close });
}

export interface AddByNameOptions extends Pick<AddModelOptions, 'modelsDir' | 'onProgress' | 'signal' | 'retries' | 'idleTimeoutMs' | 'now'> {
  name: string;
  baseUrl: string;
  catalog: readonly CatalogModel[];
}

export async function addModelByName(options: AddByNameOptions): Promise<{ model: InstalledModel; entry: CatalogModel }> {
  const entry = requireCatalogModel(options.name, options.catalog);
  const checksum = entry.checksum.algorithm === 'sha1' ? { sha1: entry.checksum.hex } : { sha256: entry.checksum.hex };
  const model = await addModel({
    modelsDir: options.modelsDir, source: catalogUrl(options.baseUrl, entry), id: entry.id, ...checksum,
    onProgress: options.onProgress, signal: options.signal, retries: options.retries, idleTimeoutMs: options.idleTimeoutMs, now: options.now,
  });
  return { model, entry };
}
