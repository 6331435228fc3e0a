// Runs claimed units as real engine processes: a temporary output folder per job, the line
// protocol, lease renewal on every sign of life, and the atomic commit of outputs together with
// the database record. Every failure becomes a reason code on the unit, never a thrown error.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { Executor, RunningUnit, UnitResult } from '../arbiter/arbiter';
import { runEngine } from '../engines/runner';
import { commitOutputs, prepareTemporaryOutputDir, temporaryOutputDir } from '../engines/commit-output';
import type { EngineRegistry } from './engine-registry';

export interface ExecutorHooks {
  /** Commits a unit's result synchronously (inside the caller's transaction); returns false if the claim lapsed. */
  complete(unit: RunningUnit, result: UnitResult): boolean;
  renew(unit: RunningUnit): void;
  log(unit: RunningUnit, level: 'debug' | 'info' | 'warn' | 'error', text: string): void;
  stallTimeoutMs(): number;
}

/** A path segment that is safe on every filesystem, and still unique for odd ids. */
export function safeSegment(id: string): string {
  const clean = id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
  return clean === id ? id : `${clean}-${createHash('sha1').update(id).digest('hex').slice(0, 8)}`;
}

export class EngineExecutor implements Executor {
  private readonly running = new Map<string, AbortController>();
  private stopping = false;

  constructor(private readonly registry: EngineRegistry, private readonly dataDir: string, private readonly hooks: ExecutorHooks) {}

  outputsDir(): string {
    return path.join(this.dataDir, 'outputs');
  }

  start(unit: RunningUnit): void {
    const abort = new AbortController();
    this.running.set(unit.key, abort);
    void this.run(unit, abort).finally(() => this.running.delete(unit.key));
  }

  /** Stops every engine; their units are left to the next start's sweep (interrupted, claims released). */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const a of this.running.values()) a.abort();
    const deadline = Date.now() + 5000;
    while (this.running.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  }


  private async run(unit: RunningUnit, abort: AbortController): Promise<void> {
    const jobId = `${unit.runId}-${safeSegment(unit.operation)}-${createHash('sha1').update(unit.key + unit.token).digest('hex').slice(0, 12)}`;
    let result: UnitResult;
    try {
      const program = this.registry.program(unit.binding, { operation: unit.operation, itemId: unit.itemId });
      const outputDir = await prepareTemporaryOutputDir(this.dataDir, jobId);
      const outcome = await runEngine(program.command, {
        jobId, operation: unit.operation, outputDir,
        input: { ...program.input, item: unit.itemId, channel: unit.channelId },
      }, {
        signal: abort.signal,
        stallTimeoutMs: this.hooks.stallTimeoutMs(),
        onProgress: () => this.hooks.renew(unit),
        onLog: (entry) => { this.hooks.renew(unit); this.hooks.log(unit, entry.level, entry.text); },
      });
      if (this.stopping) return;
      if (!outcome.ok) {
        result = { outcome: 'failed', code: outcome.code, params: outcome.params, diagnostic: outcome.diagnostic };
      } else {
        const finalDir = path.join(this.outputsDir(), safeSegment(unit.channelId), safeSegment(unit.itemId), unit.operation);
        fs.mkdirSync(finalDir, { recursive: true });
        const temps = outcome.outputs.map((o) => o.path);
        const finals = outcome.outputs.map((o) => path.join(finalDir, path.basename(o.path)));
        const bytes = outcome.outputs.reduce((s, o) => s + o.bytes, 0);
        const done: UnitResult = { outcome: 'done', bytes, outputPath: finals[0] ?? null, jobId };
        try {
          await commitOutputs(temps, finals, () => {
            if (!this.hooks.complete(unit, done)) throw new Error('claim lapsed');
          });
        } catch {
          // The claim lapsed (another holder may own the work now): the old state was restored.
        }
        fs.rmSync(temporaryOutputDir(this.dataDir, jobId), { recursive: true, force: true });
        return;
      }
    } catch (e) {
      if (this.stopping) return;
      result = { outcome: 'failed', code: 'ENGINE_SPAWN', params: {}, diagnostic: (e as Error).message };
    }
    this.hooks.complete(unit, result);
    fs.rmSync(temporaryOutputDir(this.dataDir, jobId), { recursive: true, force: true });
  }
}
