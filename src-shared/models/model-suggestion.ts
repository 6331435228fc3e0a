// Which catalog model the first-run screen suggests (docs/window.md "Models"): a larger one where a
// GPU can carry it, the default English model where the CPU has cores to spare, none on a small machine.

/** A usable GPU (src-main/gates/gpu.ts's judgement) carries the most accurate model per byte. */
export const GPU_SUGGESTION = 'whisper-large-v3-turbo-q5_0';
/** The default model (transcribe.whisperModel = ggml-base.en), fair on a few CPU cores. */
export const CORES_SUGGESTION = 'whisper-base.en';
/** Below this many cores whisper would hold every other lane back; pocketsphinx stays. */
export const MIN_SUGGESTION_CORES = 4;

export interface SuggestionInput {
  gpu: boolean;
  cores: number;
  /** Catalog names already installed: nothing is suggested that is there already. */
  installed: ReadonlySet<string>;
}

export function suggestModel(input: SuggestionInput): { name: string; because: 'gpu' | 'cores'; cores: number } | null {
  const pick = input.gpu ? { name: GPU_SUGGESTION, because: 'gpu' as const }
    : input.cores >= MIN_SUGGESTION_CORES ? { name: CORES_SUGGESTION, because: 'cores' as const } : null;
  if (!pick || input.installed.has(pick.name)) return null;
  return { ...pick, cores: input.cores };
}
