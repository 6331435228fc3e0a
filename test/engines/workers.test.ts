// Long-lived workers (docs/architecture.md "Workers"): one process keeps its model loaded across
// jobs; an engine's own error leaves it alive; a crash, a stall or a cancel fails that job only and
// the next job starts a fresh process. Real child processes through the program kit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineWorkers } from '../../src-main/engines/workers';
import { nodeProgram } from '../../src-main/engines/program-command';
import { runEngine, type EngineOutcome } from '../../src-main/engines/runner';

const PROGRAM = fileURLToPath(new URL('./fixtures/counting-worker.mjs', import.meta.url));
const pools: EngineWorkers[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const p of pools.splice(0)) p.stop();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function outDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-worker-'));
  dirs.push(d);
  return d;
}

function job(n: number, input: Record<string, unknown>) {
  return { jobId: `j${n}`, operation: 'transcribe', outputDir: outDir(), input };
}

const meta = (o: EngineOutcome) => (o.ok ? o.metadata as { pid: number; job: number; loads: number } : null);

describe('engine workers', () => {
  it('keep one process across jobs: the model loads once', async () => {
    const pool = new EngineWorkers();
    pools.push(pool);
    const cmd = nodeProgram(PROGRAM);
    const a = await pool.run('k', cmd, job(1, { text: 'one' }));
    const b = await pool.run('k', cmd, job(2, { text: 'two' }));
    expect(a.ok && b.ok).toBe(true);
    expect(meta(a)!.pid).toBe(meta(b)!.pid);
    expect(meta(b)).toMatchObject({ job: 2, loads: 1 });
    if (b.ok) expect(fs.readFileSync(b.outputs[0].path, 'utf8')).toBe('two');
    expect(pool.count('k')).toBe(1);
  });

  it("stay alive after an engine's own error, and answer with its code", async () => {
    const pool = new EngineWorkers();
    pools.push(pool);
    const cmd = nodeProgram(PROGRAM);
    const first = await pool.run('k', cmd, job(1, { text: 'a' }));
    const refused = await pool.run('k', cmd, job(2, { fail: 'MEDIA_UNREADABLE' }));
    expect(refused).toMatchObject({ ok: false, code: 'MEDIA_UNREADABLE', params: { asked: true } });
    const after = await pool.run('k', cmd, job(3, { text: 'c' }));
    expect(meta(after)!.pid).toBe(meta(first)!.pid);
  });

  it('fail only the job a crash ends; the next job gets a fresh process', async () => {
    const pool = new EngineWorkers();
    pools.push(pool);
    const cmd = nodeProgram(PROGRAM);
    const first = await pool.run('k', cmd, job(1, { text: 'a' }));
    const crashed = await pool.run('k', cmd, job(2, { crash: true }));
    expect(crashed).toMatchObject({ ok: false, code: 'ENGINE_CRASHED', params: { signal: 'SIGKILL' } });
    const next = await pool.run('k', cmd, job(3, { text: 'c' }));
    expect(next.ok).toBe(true);
    expect(meta(next)!.pid).not.toBe(meta(first)!.pid);
    expect(meta(next)!.loads).toBe(1);
  });

  it('kill a stalled or cancelled job with its process', async () => {
    const pool = new EngineWorkers();
    pools.push(pool);
    const cmd = nodeProgram(PROGRAM);
    const stalled = await pool.run('k', cmd, job(1, { hang: true }), { stallTimeoutMs: 1500 });
    expect(stalled).toMatchObject({ ok: false, code: 'ENGINE_STALLED' });
    const abort = new AbortController();
    const running = pool.run('k', cmd, job(2, { hang: true }), { signal: abort.signal, onLog: () => abort.abort() });
    expect(await running).toMatchObject({ ok: false, code: 'ENGINE_CANCELLED' });
    expect(pool.count('k')).toBe(0);
  });

  it('stop a job the way a one-shot engine is stopped: SIGTERM, then SIGKILL after the grace', async () => {
    const pool = new EngineWorkers();
    pools.push(pool);
    const cmd = nodeProgram(PROGRAM);
    const polite = new AbortController();
    const ended = await pool.run('k', cmd, job(1, { hang: true }), { signal: polite.signal, onLog: () => polite.abort() });
    expect(ended).toMatchObject({ ok: false, code: 'ENGINE_CANCELLED' });
    if (!ended.ok) expect(ended.diagnostic).toContain('engine ended by SIGTERM');
    const deaf = new AbortController();
    const killed = await pool.run('k', cmd, job(2, { ignoreTerm: true }), {
      signal: deaf.signal, killGraceMs: 200, onLog: (l) => { if (l.text === 'deaf to SIGTERM') deaf.abort(); },
    });
    expect(killed).toMatchObject({ ok: false, code: 'ENGINE_CANCELLED' });
    if (!killed.ok) expect(killed.diagnostic).toContain('engine ended by SIGKILL');
    expect(pool.count('k')).toBe(0);
  });

  it('run the same program once per job without keepAlive (the process kind), exiting after its answer', async () => {
    const outcome = await runEngine(nodeProgram(PROGRAM), job(1, { text: 'once' }));
    expect(outcome.ok).toBe(true);
    expect(meta(outcome)).toMatchObject({ job: 1, loads: 1 });
  });

  it('give an engine only the allow-listed environment', async () => {
    const cmd = nodeProgram(PROGRAM);
    expect(Object.keys(cmd.env ?? {}).every((k) => ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'TEMP', 'TMP'].includes(k) || k.startsWith('LC_') || k.startsWith('XDG_'))).toBe(true);
    process.env.BACKLOT_SECRET_FOR_TEST = 'do not pass';
    try {
      expect(nodeProgram(PROGRAM).env?.BACKLOT_SECRET_FOR_TEST).toBeUndefined();
    } finally {
      delete process.env.BACKLOT_SECRET_FOR_TEST;
    }
  });
});
