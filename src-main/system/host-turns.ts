// Turns on the host's thread for its background writes (docs/architecture.md "Turns: requests
// before background writes"): units that end together would otherwise settle back to back in one
// pass of the event loop, and a window's request that arrived meanwhile waits behind all of them.

/**
 * Hands out one turn per pass of the event loop, first come first served. Between two turns the
 * loop polls for I/O, so every request already arrived is answered before the next background write.
 */
export class HostTurns {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  /** Resolves at this caller's turn; the caller then does its synchronous work at once. */
  next(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  /** Callers waiting for a turn now (tests). */
  get queued(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // An immediate queued while the check phase runs fires on the loop's next pass, after its poll:
    // one turn per pass.
    setImmediate(() => {
      this.scheduled = false;
      this.waiting.shift()?.();
      if (this.waiting.length > 0) this.schedule();
    });
  }
}
