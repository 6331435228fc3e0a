// The contract's methods for models by name in the window (docs/window.md "Models"): the catalog with
// what is installed, an install the host runs and reports through `models-changed`, and remove.
// Spread into API by contract.ts, like the window's and the speakers' methods.
import { z } from 'zod';

const modelName = z.string().min(1).max(200);

/** An install the host is running or has just given up on; null once installed or never asked. */
export const modelInstallState = z.discriminatedUnion('state', [
  z.object({
    state: z.literal('installing'),
    /** Null until the server says how long the file is. */
    ratio: z.number().min(0).max(1).nullable(),
    /** Seconds left at the pace so far; null until the pace is known (docs/window.md "Progress and ETA"). */
    etaS: z.number().nonnegative().nullable(),
    receivedBytes: z.number().int().nonnegative(),
    totalBytes: z.number().int().nonnegative().nullable(),
  }),
  z.object({ state: z.literal('failed'), error: z.object({ code: z.string(), message: z.string() }) }),
]);
export type ModelInstallStateDto = z.infer<typeof modelInstallState>;

export const modelEntry = z.object({
  name: z.string(),
  /** The model manager's id (what transcribe.whisperModel names). */
  id: z.string(),
  engine: z.string(),
  languages: z.array(z.string()),
  /** The size the source states, rounded by it. */
  approxBytes: z.number().int().nonnegative(),
  /** The catalog's English sentence; the window says it in the reader's language where it knows the model. */
  goodFor: z.string(),
  installed: z.boolean(),
  install: modelInstallState.nullable(),
});
export type ModelEntryDto = z.infer<typeof modelEntry>;

export const modelSuggestion = z.object({
  name: z.string(),
  /** Why this one: a usable GPU, or enough CPU cores (src-shared/models/model-suggestion.ts). */
  because: z.enum(['gpu', 'cores']),
  cores: z.number().int().nonnegative(),
});
export type ModelSuggestionDto = z.infer<typeof modelSuggestion>;

export function modelsApi() {
  return {
    'models.available': {
      request: z.object({}),
      response: z.object({ models: z.array(modelEntry), suggestion: modelSuggestion.nullable() }),
    },
    'models.install': {
      request: z.object({ name: modelName }),
      response: z.object({ model: modelEntry }),
    },
    'models.remove': {
      request: z.object({ name: modelName }),
      response: z.object({ model: modelEntry }),
    },
  } as const;
}
