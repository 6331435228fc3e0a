// The model manager's API for engines and the CLI (docs/transcription.md "Model manager"): ask
// `installedModel(modelsDir, id)` in a preflight, put `modelFingerprint(modelsDir, id)` in a
// fingerprint, and install or remove with `addModel` / `removeModel`.
export {
  installedModel, listModels, removeModel, modelFingerprint, modelsDirOf, modelDir, checkModelId,
  type InstalledModel, type ModelManifest,
} from './model-store';
export { addModel, sha256Of, type AddModelOptions, type DownloadProgress } from './model-install';
export {
  modelCatalog, catalogUrl, availableModels, requireCatalogModel, addModelByName, EXTRA_CATALOG_ENV,
  type AvailableModel, type AddByNameOptions,
} from './model-by-name';
