// The dispatcher is the one door both shells use: it must refuse unknown methods and bad payloads
// by name, pass a domain refusal through, hide internal failures, and never answer off-contract.
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { dispatch } from '../../src-main/api/dispatch';
import { API, type ApiHandlers } from '../../src-shared/api/contract';
import { BacklotError } from '../../src-shared/errors';

const channel = { id: 'c1', kind: 'folder' as const, platform: 'folder', title: 'Films', source: '/films', items: 2 };

function handlers(overrides: Partial<ApiHandlers> = {}): ApiHandlers {
  const unused = () => { throw new Error('not used in this test'); };
  const all = Object.fromEntries(Object.keys(API).map((m) => [m, unused])) as unknown as ApiHandlers;
  return { ...all, 'library.list': () => ({ channels: [channel] }), ...overrides };
}

const quiet = { onInternalError: () => undefined };

describe('dispatch', () => {
  it('answers a valid call with the validated response', async () => {
    expect(await dispatch(handlers(), 'library.list', {})).toEqual({ ok: true, result: { channels: [channel] } });
  });

  it('treats a missing payload as an empty request', async () => {
    expect((await dispatch(handlers(), 'library.list', undefined)).ok).toBe(true);
  });

  it.each([['no.such.method'], ['__proto__'], ['toString'], [42], [null]])('refuses the unknown method %j', async (method) => {
    const outcome = await dispatch(handlers(), method, {});
    expect(outcome).toEqual({ ok: false, error: { code: 'UNKNOWN_METHOD', message: expect.stringMatching(/^There is no API method named ".*"\.$/) } });
  });

  it('refuses a payload of the wrong type, naming the field, without calling the handler', async () => {
    const add = vi.fn();
    const outcome = await dispatch(handlers({ 'library.add': add }), 'library.add', { source: 42 });
    expect(add).not.toHaveBeenCalled();
    expect(outcome).toEqual({ ok: false, error: { code: 'INVALID_REQUEST', message: expect.stringContaining('"source"') } });
    if (!outcome.ok) expect(outcome.error.message).toBe('The request to library.add has an invalid "source": expected string, received number.');
  });

  it('refuses a missing required field and an unknown (misspelt) field by name', async () => {
    const missing = await dispatch(handlers(), 'library.add', {});
    expect(missing.ok || missing.error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('"source"') });
    const typo = await dispatch(handlers(), 'snapshot.get', { chanel: 'c1' });
    expect(typo.ok || typo.error).toEqual({ code: 'INVALID_REQUEST', message: 'The request to snapshot.get has an unknown field "chanel".' });
  });

  it('refuses a payload that is not an object', async () => {
    const outcome = await dispatch(handlers(), 'library.list', 'hello');
    expect(outcome.ok || outcome.error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/^The request to library\.list is invalid: .*\.$/) });
  });

  it('passes a BacklotError through as its code and sentence', async () => {
    const outcome = await dispatch(handlers({
      'library.add': () => { throw new BacklotError('DUPLICATE_CHANNEL', 'That folder is already in the library.'); },
    }), 'library.add', { source: '/films' });
    expect(outcome).toEqual({ ok: false, error: { code: 'DUPLICATE_CHANNEL', message: 'That folder is already in the library.' } });
  });

  it('maps a ZodError thrown inside a handler to INVALID_REQUEST', async () => {
    const outcome = await dispatch(handlers({
      'library.add': () => { z.object({ depth: z.number() }).parse({ depth: 'x' }); throw new Error('unreachable'); },
    }), 'library.add', { source: '/films' });
    expect(outcome.ok || outcome.error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('"depth"') });
  });

  it('hides any other failure behind INTERNAL, without a stack, and reports it to the log hook', async () => {
    const onInternalError = vi.fn();
    const boom = new TypeError("Cannot read properties of undefined (reading 'x')");
    const outcome = await dispatch(handlers({ 'library.list': () => { throw boom; } }), 'library.list', {}, { onInternalError });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe('INTERNAL');
    expect(outcome.error.message).not.toMatch(/Cannot read|at .*\.ts|\n/);
    expect(Object.keys(outcome.error).sort()).toEqual(['code', 'message']);
    expect(onInternalError).toHaveBeenCalledWith('library.list', boom);
  });

  it('handles a thrown non-Error and a rejected promise the same way', async () => {
    const thrown = await dispatch(handlers({ 'library.list': () => { throw 'text'; } }), 'library.list', {}, quiet);
    const rejected = await dispatch(handlers({ 'library.list': () => Promise.reject(new Error('db locked')) }), 'library.list', {}, quiet);
    expect(thrown.ok || thrown.error.code).toBe('INTERNAL');
    expect(rejected.ok || rejected.error.code).toBe('INTERNAL');
  });

  it('never answers off-contract: a malformed handler response becomes INTERNAL', async () => {
    const onInternalError = vi.fn();
    const outcome = await dispatch(handlers({
      'library.list': () => ({ channels: [{ ...channel, items: 'two' }] }) as never,
    }), 'library.list', {}, { onInternalError });
    expect(outcome.ok || outcome.error.code).toBe('INTERNAL');
    expect(onInternalError).toHaveBeenCalledOnce();
  });

  it('strips fields a handler adds beyond the response schema', async () => {
    const outcome = await dispatch(handlers({
      'library.list': () => ({ channels: [{ ...channel, secretPath: '/root' }] }) as never,
    }), 'library.list', {});
    expect(outcome.ok && outcome.result.channels[0]).toEqual(channel);
  });
});
