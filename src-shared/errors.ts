// Every refusal a user can meet carries a stable code and one sentence; the shells print the
// sentence, the UI translates the code, and nobody sees a stack trace.
export class BacklotError extends Error {
  readonly code: string;
  readonly params: Record<string, unknown>;
  constructor(code: string, message: string, params: Record<string, unknown> = {}) {
    super(message);
    this.name = 'BacklotError';
    this.code = code;
    this.params = params;
  }
}

export function isBacklotError(e: unknown): e is BacklotError {
  return e instanceof BacklotError;
}
