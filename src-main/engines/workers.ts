// Long-lived engine workers (docs/architecture.md "Workers"): a process that keeps its model loaded
// and takes jobs one after another over the same line protocol, so a second item does not pay for
// loading a model again. Each is the one engine process client (engine-process.ts) in its
// long-lived mode: a job ends in a typed outcome and is stopped exactly as a one-shot job is.
import { DEFAULT_WORKER_IDLE_MS, EngineProcess, type EngineCommand, type EngineJobRequest, type EngineOutcome, type RunEngineOptions } from './engine-process';

export { DEFAULT_WORKER_IDLE_MS };

interface Worker { key: string; signature: string; process: EngineProcess }

/** Workers by key: an idle one with the same command is reused, else a new one starts. */
export class EngineWorkers {
  private readonly workers = new Set<Worker>();

  constructor(private readonly idleMs = DEFAULT_WORKER_IDLE_MS) {}

  run(key: string, command: EngineCommand, job: EngineJobRequest, options: RunEngineOptions = {}): Promise<EngineOutcome> {
    const signature = JSON.stringify([command.command, command.args ?? [], command.operands ?? [], command.cwd ?? '', command.env ?? null]);
    let worker = [...this.workers].find((w) => w.key === key && w.signature === signature && w.process.available);
    if (!worker) {
      // A changed command (new model, new settings) retires the key's idle workers.
      for (const w of this.workers) if (w.key === key && w.signature !== signature && !w.process.busy) w.process.stop();
      const created: Worker = {
        key, signature,
        process: new EngineProcess(command, 'long-lived', { idleMs: this.idleMs, onGone: () => this.workers.delete(created) }),
      };
      worker = created;
      this.workers.add(worker);
    }
    return worker.process.run(job, options);
  }

  /** Live worker processes (for tests and the lane page). */
  count(key?: string): number {
    return [...this.workers].filter((w) => !w.process.gone && (key === undefined || w.key === key)).length;
  }

  stop(): void {
    for (const w of [...this.workers]) w.process.stop();
  }
}
