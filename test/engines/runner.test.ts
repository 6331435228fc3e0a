// The runner against a real engine process: every way a foreign program can end (result, crash,
// hang, timeout, garbage, bad exit, silence, cancel) must come back as data, with its tree dead.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEngine, type EngineOutcome, type RunEngineOptions } from '../../src-main/engines/runner';
import { alive, eventually, failure, grandchildOf } from './fixtures/process-checks';
import { TEST_ENGINE_PATH, testEngineCommand } from '../../src-main/engines/test-engine';

let dir: string;
beforeEach(() => { dir = mkdtempSync(path.join(tmpdir(), 'backlot-runner-')); });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const FAST: RunEngineOptions = { timeoutMs: 10_000, stallTimeoutMs: 3_000, killGraceMs: 300 };

function run(input: Record<string, unknown>, options: RunEngineOptions = {}, operands: string[] = []): Promise<EngineOutcome> {
  return runEngine(testEngineCommand(operands), { jobId: 'j1', operation: 'download', input, outputDir: dir }, { ...FAST, ...options });
}

describe('runEngine with the test engine', () => {
  it('succeeds with a real, complete output file, progress and logs', async () => {
    const progress: number[] = [];
    const messages: unknown[] = [];
    const logged: string[] = [];
    const outcome = await run({ bytes: 5000, chunks: 5, chunkMs: 10 }, {
      onProgress: (p) => { progress.push(p.ratio); messages.push(p.message); },
      onLog: (l) => logged.push(l.text),
    });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.outputs).toEqual([{ name: 'output', path: path.join(dir, 'output.bin'), bytes: 5000 }]);
    expect(statSync(path.join(dir, 'output.bin')).size).toBe(5000);
    expect(progress).toEqual([0.2, 0.4, 0.6, 0.8, 1]);
    // Each progress line's message arrives keyed, beside its English text (docs/i18n.md "Progress messages").
    expect(messages[1]).toEqual({ text: 'chunk 2 of 5', key: 'chunkOf', params: { chunk: 2, of: 5 } });
    expect(logged).toContain('job j1 download');
    expect(outcome.logs.map((l) => l.text)).toEqual(logged);
  });

  it('passes untrusted operands literally, after --', async () => {
    const operands = ['-rf', '--exec=rm -rf /', 'a title with spaces', `it's "quoted"`, '$(touch pwned)', '`id`', '; ls', 'https://x.test/watch?v=1&list=2'];
    const outcome = await run({ chunks: 1, chunkMs: 0 }, {}, operands);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.metadata.argv).toEqual(['--', ...operands]);
    expect(() => statSync(path.join(process.cwd(), 'pwned'))).toThrow();
  });

  it('reports a crash with its signal', async () => {
    const f = failure(await run({ chunks: 4, crash: 2 }));
    expect(f.code).toBe('ENGINE_CRASHED');
    expect(f.params).toEqual({ signal: 'SIGKILL' });
  });

  it('kills a silent engine as stalled, and its grandchild with it', async () => {
    const outcome = await run({ chunks: 4, hang: 1, spawnChild: true }, { stallTimeoutMs: 800 });
    const f = failure(outcome);
    expect(f.code).toBe('ENGINE_STALLED');
    expect(f.params).toEqual({ stallTimeoutMs: 800 });
    expect(f.diagnostic).toContain('engine ended by SIGTERM');
    const grandchild = grandchildOf(outcome);
    expect(await eventually(() => !alive(grandchild))).toBe(true);
  });

  it('enforces the overall timeout even while progress keeps coming', async () => {
    // It can never finish (100,000 chunks of 20 ms), so only the timeout can end it, at any pace.
    const f = failure(await run({ chunks: 100_000, chunkMs: 20 }, { timeoutMs: 400, stallTimeoutMs: 60_000 }));
    expect(f.code).toBe('ENGINE_TIMEOUT');
    expect(f.params).toEqual({ timeoutMs: 400 });
  });

  it('escalates to SIGKILL when the engine ignores SIGTERM', async () => {
    // Cancel on the first progress line: by then the engine has installed its SIGTERM trap.
    const controller = new AbortController();
    const f = failure(await run({ chunks: 4, hang: 1, ignoreTerm: true }, {
      killGraceMs: 200, signal: controller.signal, onProgress: () => controller.abort(),
    }));
    expect(f.code).toBe('ENGINE_CANCELLED');
    expect(f.diagnostic).toContain('engine ended by SIGKILL');
  });

  it('stops an engine that prints garbage, keeping the line as diagnostic only', async () => {
    const f = failure(await run({ chunks: 20, chunkMs: 50, garbage: 1 }));
    expect(f.code).toBe('ENGINE_PROTOCOL');
    expect(f.params).toEqual({ violation: 'not-json' });
    expect(f.diagnostic).toContain('this is not json');
  });

  it('reports a non-zero exit with its code and stderr as diagnostic', async () => {
    const f = failure(await run({ chunks: 2, exitCode: 3, stderr: 'upstream: 403 Forbidden' }));
    expect(f.code).toBe('ENGINE_EXIT');
    expect(f.params).toEqual({ exitCode: 3 });
    expect(f.diagnostic).toContain('403 Forbidden');
  });

  it('fails a clean exit without a result', async () => {
    expect(failure(await run({ chunks: 2, noResult: true })).code).toBe('ENGINE_NO_RESULT');
  });

  it('passes the engine\'s own reason code through, raw text only as diagnostic', async () => {
    const f = failure(await run({ errorCode: 'DOWNLOAD_UNAVAILABLE', errorParams: { status: 410 } }));
    expect(f).toMatchObject({ code: 'DOWNLOAD_UNAVAILABLE', params: { status: 410 } });
    expect(f.diagnostic).toContain('upstream said no');
  });

  it('cancels through an AbortSignal and kills the whole tree', async () => {
    const controller = new AbortController();
    const grandchildren: number[] = [];
    const outcome = run({ chunks: 200, chunkMs: 50, spawnChild: true }, {
      signal: controller.signal,
      onLog: (l) => {
        if (l.text.startsWith('grandchild ')) grandchildren.push(Number(l.text.split(' ')[1]));
      },
      onProgress: () => controller.abort(),
    });
    const f = failure(await outcome);
    expect(f.code).toBe('ENGINE_CANCELLED');
    expect(grandchildren).toHaveLength(1);
    expect(await eventually(() => !alive(grandchildren[0]))).toBe(true);
  });

  it('does not start an engine for an already aborted signal', async () => {
    const spawned: number[] = [];
    const f = failure(await run({}, { signal: AbortSignal.abort(), onSpawn: (pid) => spawned.push(pid) }));
    expect(f.code).toBe('ENGINE_CANCELLED');
    expect(spawned).toEqual([]);
  });

  it('kills a grandchild left behind by an engine that crashed', async () => {
    const outcome = await run({ chunks: 4, crash: 2, spawnChild: true });
    expect(failure(outcome).code).toBe('ENGINE_CRASHED');
    const grandchild = grandchildOf(outcome);
    expect(await eventually(() => !alive(grandchild))).toBe(true);
  });

  /** A one-off engine in a few lines of node, for protocol corner cases the test engine does not play. */
  function inline(jobId: string, body: string, options: RunEngineOptions = {}): Promise<EngineOutcome> {
    const script = `const send = (m) => console.log(JSON.stringify(m));
      process.stdin.once('data', () => { ${body} });`;
    return runEngine({ command: process.execPath, args: ['-e', script] },
      { jobId, operation: 'download', input: {}, outputDir: dir }, { ...FAST, ...options });
  }

  it('refuses a result whose file is missing or shorter than reported', async () => {
    const missing = await inline('j2', `send({ type: 'result', outputs: [{ name: 'media', path: 'never.bin', bytes: 10 }] }); process.exit(0);`);
    expect(failure(missing)).toMatchObject({ code: 'ENGINE_OUTPUT_INVALID', params: { name: 'media', reason: 'missing' } });
    const short = await inline('j2', `require('fs').writeFileSync(${JSON.stringify(path.join(dir, 'half.bin'))}, 'abcde');
      send({ type: 'result', outputs: [{ name: 'media', path: 'half.bin', bytes: 10 }] }); process.exit(0);`);
    expect(failure(short)).toMatchObject({ code: 'ENGINE_OUTPUT_INVALID', params: { name: 'media', reason: 'size-mismatch' } });
  });

  it('refuses a result that points outside its output directory', async () => {
    const outcome = await inline('j3', `send({ type: 'result', outputs: [{ name: 'media', path: '../../etc/passwd', bytes: 1 }] }); process.exit(0);`);
    expect(failure(outcome)).toMatchObject({ code: 'ENGINE_OUTPUT_INVALID', params: { reason: 'outside-output-dir' } });
  });

  it('reports a second terminal message as a protocol error', async () => {
    const outcome = await inline('j4', `send({ type: 'error', code: 'A', params: {} }); send({ type: 'error', code: 'B', params: {} });
      setTimeout(() => process.exit(0), 2000);`);
    expect(failure(outcome)).toMatchObject({ code: 'ENGINE_PROTOCOL', params: { violation: 'second-terminal' } });
  });

  it('keeps the engine\'s own reason when it lingers after its error line', async () => {
    const outcome = await inline('j6', `send({ type: 'error', code: 'TRANSCRIBE_MODEL_MISSING', params: { model: 'base' } });
      setInterval(() => {}, 1000);`, { stallTimeoutMs: 800 });
    expect(failure(outcome)).toMatchObject({ code: 'TRANSCRIBE_MODEL_MISSING', params: { model: 'base' } });
  });

  it('fails an engine whose result is followed by a non-zero exit', async () => {
    const outcome = await inline('j7', `send({ type: 'result', outputs: [] }); process.exit(2);`);
    expect(failure(outcome)).toMatchObject({ code: 'ENGINE_EXIT', params: { exitCode: 2 } });
  });

  it('reports a program that cannot be started', async () => {
    const outcome = await runEngine(
      { command: path.join(dir, 'no-such-engine') },
      { jobId: 'j5', operation: 'download', input: {}, outputDir: dir },
      FAST,
    );
    expect(failure(outcome)).toMatchObject({ code: 'ENGINE_SPAWN', params: { reason: 'ENOENT' } });
  });

  it('an engine whose host is gone (stdin closed) stops on its own, grandchild included', async () => {
    // What a kill -9 of the host looks like to an engine: it must not keep writing into the library.
    const engine = spawn(process.execPath, [TEST_ENGINE_PATH], { detached: true, stdio: ['pipe', 'pipe', 'inherit'] });
    engine.stdin.write(`${JSON.stringify({ type: 'job', jobId: 'j8', operation: 'download', input: { chunks: 4, hang: 1, spawnChild: true }, outputDir: dir })}\n`);
    let out = '';
    engine.stdout.setEncoding('utf8');
    engine.stdout.on('data', (c: string) => { out += c; });
    expect(await eventually(() => out.includes('"progress"'), 10_000)).toBe(true);
    const grandchild = Number(/grandchild (\d+)/.exec(out)?.[1]);
    const exited = once(engine, 'exit');
    engine.stdin.end();
    await exited;
    expect(await eventually(() => !alive(grandchild))).toBe(true);
  });
});
