// Types for build-state.mjs, which the tests' global setup imports.
export const ROOT: string;
export function staleReason(): string | null;
export function build(options?: { output?: 'inherit' | 'quiet'; onlyIfStale?: boolean }): void;
export function sourceSignature(): string;
