// Ten windows re-read the same answer after the same host event. An answer that is a function of
// the library file alone is kept, serialized, until the file changes (docs/window.md "Many
// windows"), so the host computes, checks and serializes it once, not once per window.

/** The reads whose answer depends only on the library file and the request (no clock, no memory state). */
export const FILE_ONLY_READS: ReadonlySet<string> = new Set(['snapshot.get', 'runs.list']);

const MAX_ENTRIES = 64;
/** Larger answers (a channel's reachable ids) are not kept: memory for one-off reads. */
const MAX_BODY_CHARS = 64 * 1024;

export class ReadMemo {
  private version: string | null = null;
  private readonly bodies = new Map<string, string>();
  hits = 0;

  /** `libraryVersion` changes whenever the library file may have changed (this process's writes or another's commit). */
  constructor(private readonly libraryVersion: () => string) {}

  /** The kept answer to this request, if the file has not changed since it was made. */
  get(method: string, requestText: string): string | undefined {
    if (!FILE_ONLY_READS.has(method)) return undefined;
    this.sync();
    const body = this.bodies.get(key(method, requestText));
    if (body !== undefined) this.hits++;
    return body;
  }

  /** Keeps an answer made at the version read by the last `get` for it. */
  set(method: string, requestText: string, body: string, versionBefore: string): void {
    if (!FILE_ONLY_READS.has(method) || body.length > MAX_BODY_CHARS) return;
    // The file changed while the answer was made: it may mix two versions, so it is not kept.
    if (this.libraryVersion() !== versionBefore) return;
    this.sync();
    if (this.bodies.size >= MAX_ENTRIES) this.bodies.delete(this.bodies.keys().next().value as string);
    this.bodies.set(key(method, requestText), body);
  }

  /** Whether an answer to this method may be kept at all. */
  keeps(method: string): boolean {
    return FILE_ONLY_READS.has(method);
  }

  currentVersion(): string {
    return this.libraryVersion();
  }

  private sync(): void {
    const v = this.libraryVersion();
    if (v !== this.version) {
      this.version = v;
      this.bodies.clear();
    }
  }
}

function key(method: string, requestText: string): string {
  return `${method}\n${requestText}`;
}
