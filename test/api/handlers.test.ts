// The host's handlers against a real SQLite library: what they answer is on-contract, and the
// methods this build does not serve yet refuse clearly instead of failing obscurely.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHandlers } from '../../src-main/api/handlers';
import { dispatch } from '../../src-main/api/dispatch';
import { Host } from '../../src-main/host/host';
import { API, type ApiMethod } from '../../src-shared/api/contract';
import { createFixtureLibrary, FIXTURE_CHANNEL, type FixtureLibrary } from '../shells/library-fixture';

let lib: FixtureLibrary;
let host: Host;

beforeEach(() => {
  lib = createFixtureLibrary(3);
  host = new Host({ databaseFile: lib.databaseFile });
});
afterEach(() => {
  host.close();
  lib.remove();
});

describe('createHandlers', () => {
  it('library.list gives each channel with its item count, on-contract', async () => {
    const result = await createHandlers(host)['library.list']({});
    expect(API['library.list'].response.parse(result)).toEqual({
      channels: [{ id: FIXTURE_CHANNEL.id, kind: 'folder', platform: 'folder', title: FIXTURE_CHANNEL.title, source: FIXTURE_CHANNEL.source, items: 3 }],
    });
  });

  it('snapshot.get gives the six separate counts per operation, on-contract', async () => {
    const result = await createHandlers(host)['snapshot.get']({});
    const parsed = API['snapshot.get'].response.parse(result);
    expect(parsed.channels).toHaveLength(1);
    const [ch] = parsed.channels;
    expect(ch).toMatchObject({ id: FIXTURE_CHANNEL.id, title: FIXTURE_CHANNEL.title, items: 3 });
    expect(ch.operations.download).toEqual({ done: 3, missing: 0, stale: 0, missingInput: 0, deferred: 0, blocked: 0 });
    expect(ch.operations.transcribe).toMatchObject({ missing: 3, done: 0 });
    expect(ch.operations.digest).toMatchObject({ blocked: 3, missing: 0 });
    expect(ch.operations.transcribe.ids).toBeUndefined();
  });

  it('snapshot.get passes channel and ids through', async () => {
    const result = await createHandlers(host)['snapshot.get']({ channel: FIXTURE_CHANNEL.id, ids: true });
    expect(result.channels[0].operations.transcribe.ids).toHaveLength(3);
  });

  it('snapshot.get refuses an unknown channel with a code and a sentence', async () => {
    const outcome = await dispatch(createHandlers(host), 'snapshot.get', { channel: 'nope' });
    expect(outcome).toEqual({ ok: false, error: { code: 'CHANNEL_NOT_FOUND', message: 'There is no channel "nope" in the library.' } });
  });

  const notYet: [ApiMethod, unknown][] = [
    ['library.add', { source: '/films' }], ['library.scan', {}], ['explain.get', { item: 'x', operation: 'transcribe' }],
    ['lanes.list', {}], ['lanes.pause', { lane: 'gpu' }], ['lanes.resume', { lane: 'gpu' }], ['runs.list', {}],
  ];
  it.each(notYet)('%s refuses with NOT_AVAILABLE until it is wired', async (method, payload) => {
    const outcome = await dispatch(createHandlers(host), method, payload);
    expect(outcome).toEqual({ ok: false, error: { code: 'NOT_AVAILABLE', message: `${method} is not available in this build yet.` } });
  });

  it('implements every method of the contract', () => {
    expect(Object.keys(createHandlers(host)).sort()).toEqual(Object.keys(API).sort());
  });
});
