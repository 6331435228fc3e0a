// The pocketsphinx 5 decoder, loaded once in a Python child (decoder-py.ts) and fed chunk after chunk:
// the worker keeps it, and with it the loaded model, across items.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { EngineJobError } from '../program-kit';
import type { RecognizedWord, Recognizer } from '../transcribe-kit/recognizer';
import { sphinxWords } from './sphinx-words';
import type { SphinxVariant } from './variants';
import { DECODER_PY } from './decoder-py';

type Answer = { words?: [string, number, number, number][]; error?: string; ready?: boolean; fatal?: string; version?: string };

export class WheelRecognizer implements Recognizer {
  readonly engine: string;
  readonly model: string;
  readonly language = 'en-US';
  private buffer = '';
  private waiting: ((a: Answer | Error) => void) | null = null;
  private stderr = '';
  private dead: Error | null = null;

  private constructor(private readonly child: ChildProcessWithoutNullStreams, variant: SphinxVariant) {
    this.engine = variant.label;
    this.model = `en-us (pocketsphinx ${variant.version} wheel)`;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (c: string) => this.onData(c));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (c: string) => { this.stderr = (this.stderr + c).slice(-8192); });
    child.stdin.on('error', () => undefined);
    child.once('exit', (code, sig) => this.fail(new EngineJobError('DECODER_CRASHED', 'The pocketsphinx decoder stopped unexpectedly.', { exitCode: code, signal: sig }, this.stderr)));
    child.once('error', (e) => this.fail(new EngineJobError('DECODER_MISSING', 'The Python interpreter for pocketsphinx could not be started.', { reason: (e as NodeJS.ErrnoException).code ?? 'unknown' })));
  }

  /** Starts the decoder and waits until its model is loaded. */
  static async start(variant: SphinxVariant): Promise<WheelRecognizer> {
    const m = variant.model;
    const child = spawn(variant.program, ['-u', '-c', DECODER_PY, '--hmm', m.hmm, '--lm', m.lm, '--dict', m.dict], {
      stdio: ['pipe', 'pipe', 'pipe'], shell: false, windowsHide: true, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    });
    const r = new WheelRecognizer(child, variant);
    const ready = await r.next();
    if (ready instanceof Error) throw ready;
    if (!ready.ready) {
      child.kill('SIGKILL');
      throw new EngineJobError('DECODER_MODEL_UNREADABLE', 'pocketsphinx could not load its model.', { model: m.hmm }, ready.fatal ?? '');
    }
    return r;
  }

  get alive(): boolean {
    return this.dead === null;
  }

  async recognize(pcm: Int16Array, offsetS: number, signal: AbortSignal): Promise<RecognizedWord[]> {
    if (this.dead) throw this.dead;
    const bytes = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
    const onAbort = (): void => { this.child.kill('SIGKILL'); };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const answer = this.next();
      this.child.stdin.write(`${bytes.length}\n`);
      this.child.stdin.write(bytes);
      const a = await answer;
      if (a instanceof Error) throw a;
      if (a.error !== undefined || !a.words) throw new EngineJobError('DECODER_FAILED', 'pocketsphinx could not decode a chunk.', {}, a.error ?? '');
      return sphinxWords(a.words, offsetS);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  close(): Promise<void> {
    if (this.dead) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.stdin.end();
      setTimeout(() => this.child.kill('SIGKILL'), 2000).unref();
    });
  }

  private next(): Promise<Answer | Error> {
    if (this.dead) return Promise.resolve(this.dead);
    return new Promise((resolve) => { this.waiting = resolve; });
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      const resolve = this.waiting;
      this.waiting = null;
      let parsed: Answer | Error;
      try {
        parsed = JSON.parse(line) as Answer;
      } catch {
        parsed = new EngineJobError('DECODER_FAILED', 'The pocketsphinx decoder printed something unreadable.', {}, line.slice(0, 200));
      }
      resolve?.(parsed);
    }
  }

  private fail(e: Error): void {
    if (this.dead) return;
    this.dead = e;
    const resolve = this.waiting;
    this.waiting = null;
    resolve?.(e);
  }
}
