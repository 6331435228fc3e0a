// A TEST DOUBLE of the pools' transport (src-main/pools/pool-runtime.ts): its lanes come from data the
// test sets, and run() runs the test engine's real program here, through the real engine process
// client, into the job's outputDir, as a worker would after uploading its outputs. The real runtime
// (BullMQ on Redis, `backlot worker`) is another part of issue 18; this double only lets the host's
// side (pool lanes in the arbiter, the launch step, the display) be tested without it.
import { runEngine, type EngineOutcome } from '../../src-main/engines/runner';
import { testAdapter } from '../../src-main/engines/test-engine/adapter';
import type { InProcessIo } from '../../src-main/engines/adapter';
import type { PoolLaneState, PoolRuntime, PoolUnitRequest } from '../../src-main/pools/pool-runtime';

export class InMemoryPoolRuntimeDouble implements PoolRuntime {
  /** Every request run() received, in order. */
  readonly requests: PoolUnitRequest[] = [];
  /** Codes the next units fail with instead of running (a lost worker), consumed one per unit. */
  readonly failNext: string[] = [];
  private readonly listeners = new Set<() => void>();
  closed = false;

  constructor(private states: PoolLaneState[]) {}

  lanes(): PoolLaneState[] {
    return this.states;
  }

  /** The workers changed: new lanes, then every listener is told (as heartbeats would). */
  set(states: PoolLaneState[]): void {
    this.states = states;
    for (const l of this.listeners) l();
  }

  async run(request: PoolUnitRequest, io: InProcessIo): Promise<EngineOutcome> {
    this.requests.push(request);
    const code = this.failNext.shift();
    if (code !== undefined) return { ok: false, code, params: { lane: `${request.lane}@${request.pool}` }, diagnostic: 'the test double lost its worker', logs: [] };
    const launch = await testAdapter(request.job.operation, { chunkMs: 5, chunks: 2 }).launch(request.job);
    if (launch.kind !== 'process') throw new Error('the test engine runs as a process');
    return runEngine(launch.command, { jobId: request.job.jobId, operation: request.job.operation, outputDir: request.job.outputDir, input: launch.input }, {
      signal: io.signal,
      onProgress: (p) => io.progress(p.ratio, p.message),
      onLog: (entry) => io.log(entry.level, entry),
    });
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

/** One pool lane as a PoolRuntime reports it, with one live worker advertising its slots. */
export function poolLane(pool: string, lane: 'gpu' | 'cpu', slots: number, hold: PoolLaneState['hold'] = null): PoolLaneState {
  return {
    pool, lane, queueKey: `${lane}@${pool}`, slots, hold,
    workers: slots === 0 ? [] : [{
      id: `${pool}-w1`, host: `${pool}-box`, version: '0.1.0', lanes: [lane], slots: { [lane]: slots }, freeSlots: { [lane]: slots },
      engines: [{ id: 'test', fingerprint: 'test-engine-1', preflight: { ok: true } }], lastHeartbeat: 1_700_000_000_000, outOfService: null,
    }],
  };
}
