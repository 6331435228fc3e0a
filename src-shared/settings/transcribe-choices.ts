// Transcription settings' plain values, zod-free, so a transcribe engine's start does not build the
// whole settings schema (docs/benchmarks.md "The command line", session 7); settings-schema re-exports them.

/** Choices for the pocketsphinx decoder (docs/transcription.md "pocketsphinx"); auto takes the best one present. */
export const POCKETSPHINX_DECODERS = ['auto', 'wheel-decoder', 'debian-decoder-wheel-model', 'debian-decoder'] as const;
export type PocketsphinxDecoder = (typeof POCKETSPHINX_DECODERS)[number];

/**
 * The longest `transcribe.prompt`: whisper.cpp keeps at most half its text context (224 tokens for
 * the published models) of a prompt, and 800 characters of English is about that much.
 */
export const TRANSCRIBE_PROMPT_MAX = 800;
