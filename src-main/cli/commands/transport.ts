// `backlot transport serve`: runs the pools' Redis in the foreground for the user who has none
// (docs/pools.md "Transport"), records its admin URL for `pool add`, and stops it on SIGINT/SIGTERM.
import path from 'node:path';
import type { Command } from './index';
import { CliUsageError, parseCommandArgs } from '../args';
import { databaseFile } from '../data-dir';
import { listenForStop } from '../stop-signal';
import { openDatabase } from '../../db/connection';
import { SettingsStore } from '../../settings/settings-store';
import { SecretStore } from '../../settings/secret-store';
import { BacklotError } from '../../../src-shared/errors';
import { parseListen, prepareTransport, startRedisServer } from '../../pools/transport-server';

const USAGE = 'transport serve [--listen HOST:PORT] [--data DIR]';
export const DEFAULT_TRANSPORT_LISTEN = '127.0.0.1:6380';

export const transportCommand: Command = {
  name: 'transport',
  summary: 'Run the Redis the pools use (TLS, ACL, append-only) in the foreground',
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, { listen: { type: 'string' }, data: { type: 'string' } }, USAGE);
    if (positionals.length !== 1 || positionals[0] !== 'serve') throw new CliUsageError(`transport needs serve. Usage: backlot ${USAGE}`);
    const stop = listenForStop();
    try {
      const listen = parseListen(values.listen ?? DEFAULT_TRANSPORT_LISTEN);
      const file = databaseFile(values.data);
      const dataDir = path.dirname(file);
      // The library's settings record where the transport is; a new data folder becomes a library here, as `serve` does.
      const db = openDatabase(file);
      let prepared;
      try {
        const settings = new SettingsStore(db, { secrets: new SecretStore(dataDir) });
        const stored = settings.secrets().read('transport.redisPassword');
        if (stored.state === 'locked') throw new BacklotError('TRANSPORT_SECRET_LOCKED', `The Redis admin password is sealed by ${stored.scheme}; run transport serve from the desktop app's data folder with its keychain, or remove the secret.`);
        prepared = prepareTransport(dataDir, listen, stored.state === 'set' ? stored.value : null);
        if (stored.state !== 'set') settings.set('transport.redisPassword', prepared.password);
        settings.set('transport.redisUrl', prepared.url);
        settings.set('transport.redisCaFile', prepared.layout.cert);
      } finally {
        db.close();
      }
      const starting = startRedisServer(prepared.layout);
      const early = await Promise.race([starting.then(() => false), stop.requested.then(() => true)]);
      // A signal while Redis starts still stops it: wait until it runs (or fails), then end it.
      const running = await starting;
      if (early) {
        await running.stop();
        return 0;
      }
      process.stdout.write(`backlot transport: Redis ready at ${prepared.url} (admin password: transport.redisPassword in the secret store; CA: ${prepared.layout.cert})\n`);
      const ended = await Promise.race([running.exited.then((code) => ({ code })), stop.requested.then(() => null)]);
      if (ended === null) {
        await running.stop();
        return 0;
      }
      throw new BacklotError('TRANSPORT_EXITED', `redis-server stopped by itself (exit ${ended.code}); see ${prepared.layout.log}.`);
    } finally {
      stop.dispose();
    }
  },
};
