// The line parser is the host's first defence against a misbehaving engine: it must type every
// valid line and turn any garbage into a typed protocol error without throwing.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { encodeLine, MAX_LINE_CHARS, parseEngineLine, parseEngineLineWithSchemas, parseJobLine } from '../../src-shared/protocol/engine-lines';

describe('engine line protocol', () => {
  it('parses each engine message type', () => {
    expect(parseEngineLine('{"type":"progress","ratio":0.5,"message":"half"}'))
      .toEqual({ ok: true, message: { type: 'progress', ratio: 0.5, message: 'half' } });
    // A keyed progress message (docs/i18n.md "Progress messages"): key and params beside its English text.
    expect(parseEngineLine('{"type":"progress","ratio":0.25,"message":"chunk 3 of 12","key":"chunkOf","params":{"chunk":3,"of":12}}'))
      .toEqual({ ok: true, message: { type: 'progress', ratio: 0.25, message: 'chunk 3 of 12', key: 'chunkOf', params: { chunk: 3, of: 12 } } });
    expect(parseEngineLine('{"type":"log","level":"warn","text":"slow"}'))
      .toEqual({ ok: true, message: { type: 'log', level: 'warn', text: 'slow' } });
    // A keyed line (docs/i18n.md "Log lines"): key and params ride beside the English text.
    expect(parseEngineLine('{"type":"log","level":"info","text":"1 segment, 0 speakers","key":"wordsAttributed","params":{"segments":1,"speakers":0}}'))
      .toEqual({ ok: true, message: { type: 'log', level: 'info', text: '1 segment, 0 speakers', key: 'wordsAttributed', params: { segments: 1, speakers: 0 } } });
    expect(parseEngineLine('{"type":"result","outputs":[{"name":"media","path":"a.mkv","bytes":3}]}'))
      .toEqual({ ok: true, message: { type: 'result', outputs: [{ name: 'media', path: 'a.mkv', bytes: 3 }], metadata: {} } });
    expect(parseEngineLine('{"type":"error","code":"DOWNLOAD_UNAVAILABLE","params":{"status":410}}'))
      .toEqual({ ok: true, message: { type: 'error', code: 'DOWNLOAD_UNAVAILABLE', params: { status: 410 } } });
  });

  it('round-trips what it encodes', () => {
    const line = encodeLine({ type: 'log', level: 'info', text: 'two\nlines' });
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(parseEngineLine(line.slice(0, -1))).toEqual({ ok: true, message: { type: 'log', level: 'info', text: 'two\nlines' } });
  });

  it.each([
    ['this is not json', 'not-json'],
    ['', 'not-json'],
    ['[1,2]', 'not-object'],
    ['null', 'not-object'],
    ['"result"', 'not-object'],
    ['{"type":"launch"}', 'unknown-type'],
    ['{"ratio":1}', 'unknown-type'],
    ['{"type":"job","jobId":"1"}', 'unexpected-job'],
    ['{"type":"progress","ratio":1.5}', 'invalid-field'],
    ['{"type":"log","level":"fatal","text":"x"}', 'invalid-field'],
    // A keyed progress message always comes with its English text; its key has the keys' shape.
    ['{"type":"progress","ratio":0.5,"key":"chunkOf","params":{"chunk":1,"of":2}}', 'invalid-field'],
    ['{"type":"progress","ratio":0.5,"message":"x","key":"not a key"}', 'invalid-field'],
    ['{"type":"progress","ratio":0.5,"message":"x","key":"k","params":[1]}', 'invalid-field'],
    ['{"type":"log","level":"info","text":"x","key":"not a key"}', 'invalid-field'],
    ['{"type":"log","level":"info","text":"x","key":"k","params":[1]}', 'invalid-field'],
    ['{"type":"result","outputs":[{"name":"a","path":"a","bytes":-1}]}', 'invalid-field'],
    ['{"type":"error","code":"lower case words","params":{}}', 'invalid-field'],
  ])('turns %j into a typed %s error without throwing', (line, violation) => {
    const parsed = parseEngineLine(line);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error.code).toBe('ENGINE_PROTOCOL');
      expect(parsed.error.params.violation).toBe(violation);
      expect(parsed.error.excerpt.length).toBeLessThanOrEqual(200);
    }
  });

  it('gives the answers of the schemas for progress and log lines, valid or not (the quick checks)', () => {
    const progress = [
      { ratio: 0 }, { ratio: 1 }, { ratio: -0 }, { ratio: 0.5, message: 'half' }, { ratio: 0.5, message: 'm', key: 'chunkOf', params: { a: 1 } },
      { ratio: 0.5, extra: 'dropped' }, { ratio: 1.01 }, { ratio: -0.1 }, { ratio: '0.5' }, { ratio: null }, {}, { ratio: 'Infinity' },
      { ratio: 0.5, message: 3 }, { ratio: 0.5, key: 'chunkOf' }, { ratio: 0.5, message: 'm', key: 'Bad-key' },
      { ratio: 0.5, message: 'm', key: `k${'x'.repeat(100)}` }, { ratio: 0.5, message: 'm', key: 'ok', params: [1] },
      { ratio: 0.5, params: null }, { ratio: 0.5, params: 'p' }, { ratio: 0.5, message: null },
    ].map((m) => ({ type: 'progress', ...m }));
    const log = [
      { level: 'info', text: 't' }, { level: 'debug', text: '' }, { level: 'error', text: 't', key: 'wordsAttributed', params: {} },
      { level: 'warn', text: 't', extra: 1 }, { level: 'fatal', text: 't' }, { level: 'info' }, { level: 'info', text: 5 },
      { text: 't' }, { level: 'info', text: 't', key: 'x y' }, { level: 'info', text: 't', params: [] }, { level: 'info', text: 't', key: 7 },
    ].map((m) => ({ type: 'log', ...m }));
    for (const message of [...progress, ...log]) {
      // JSON has no Infinity; 1e400 in a line parses to it.
      const line = JSON.stringify(message).replace('"Infinity"', '1e400');
      expect(parseEngineLine(line), line).toEqual(parseEngineLineWithSchemas(line));
    }
  });

  it('names the offending field', () => {
    const parsed = parseEngineLine('{"type":"result","outputs":[{"name":"a","path":"","bytes":1}]}');
    expect(parsed.ok ? null : parsed.error.params).toEqual({ violation: 'invalid-field', type: 'result', field: 'outputs.0.path' });
  });

  it('refuses a line longer than the limit', () => {
    const parsed = parseEngineLine(`{"type":"log","level":"info","text":"${'x'.repeat(MAX_LINE_CHARS)}"}`);
    expect(parsed.ok ? null : parsed.error.params.violation).toBe('line-too-long');
  });

  it('parses the job line for TypeScript engines', () => {
    const job = { type: 'job', jobId: 'j1', operation: 'download', input: { url: 'https://x' }, outputDir: '/tmp/j1' } as const;
    expect(parseJobLine(encodeLine(job).trim())).toEqual({ ok: true, message: job });
    expect(parseJobLine('{"type":"job","jobId":"j1"}').ok).toBe(false);
  });

  // The engine side checks the job line without zod (src-shared/protocol/line-codec.ts, so an
  // engine's start loads none); it must answer exactly as the zod schema it replaced.
  const jobSchema = z.object({
    type: z.literal('job'),
    jobId: z.string().min(1),
    operation: z.string().min(1),
    input: z.record(z.string(), z.unknown()),
    outputDir: z.string().min(1),
    keepAlive: z.boolean().optional(),
  });
  const viaZod = (line: string) => {
    const value = JSON.parse(line) as Record<string, unknown>;
    if (value.type !== 'job') return { violation: 'unknown-type' };
    const r = jobSchema.safeParse(value);
    return r.success ? { message: r.data } : { violation: 'invalid-field', type: 'job', field: r.error.issues[0].path.map(String).join('.') };
  };
  const valid = { type: 'job', jobId: 'j1', operation: 'digest', input: { a: [1, { b: null }] }, outputDir: '/tmp/j1' };
  it.each([
    valid,
    { ...valid, keepAlive: true },
    { ...valid, keepAlive: false, extra: 'dropped', more: { x: 1 } },
    { ...valid, input: {} },
    { ...valid, type: 'result' },
    { ...valid, type: undefined },
    { ...valid, jobId: '' },
    { ...valid, jobId: 7 },
    { ...valid, jobId: undefined, operation: '' },
    { ...valid, operation: null },
    { ...valid, input: [] },
    { ...valid, input: null },
    { ...valid, input: 'text' },
    { ...valid, input: undefined },
    { ...valid, outputDir: '' },
    { ...valid, outputDir: ['x'] },
    { ...valid, keepAlive: 'yes' },
    { ...valid, keepAlive: null },
    { ...valid, jobId: '', operation: '', input: [], outputDir: '', keepAlive: 1 },
  ])('checks the job line %j as the zod schema does', (job) => {
    const line = JSON.stringify(job);
    const parsed = parseJobLine(line);
    const expected = viaZod(line);
    if ('message' in expected) expect(parsed).toEqual({ ok: true, message: expected.message });
    else expect(parsed.ok ? null : parsed.error.params).toEqual(expected);
  });

  it('refuses a job line that is no JSON object, as before', () => {
    const text = parseJobLine('not json');
    expect(text.ok ? null : text.error.params).toEqual({ violation: 'not-json' });
    const arr = parseJobLine('[1]');
    expect(arr.ok ? null : arr.error.params).toEqual({ violation: 'not-object' });
    const long = parseJobLine(`{"type":"job","jobId":"${'x'.repeat(MAX_LINE_CHARS)}"}`);
    expect(long.ok ? null : long.error.params).toEqual({ violation: 'line-too-long' });
  });
});
