// `backlot serve`: the headless shell on 127.0.0.1, for a browser on this machine (or through an
// ssh tunnel). Prints one line, the URL with its token, and runs until SIGINT or SIGTERM.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from './index';
import { CliUsageError, parseCommandArgs } from '../args';
import { databaseFile } from '../data-dir';
import { DEFAULT_RENDERER_DIR, startHeadlessApp } from '../../shells/headless/start';
import { normalizeAllowedHost } from '../../shells/headless/doors';
import { tokenFileIsShared, tokenFromSources } from '../../shells/headless/token-source';
import { parseHostFaults, withHostFaults } from '../../shells/headless/host-faults';
import { onFatalStop } from '../../system/uncaught';
import { engineProfileFlag, testEngineOptions } from '../engine-flags';
import { listenForStop } from '../stop-signal';
import { openCliApp } from '../app';
import { parseListen } from '../../pools/worker-door/door-server';

const USAGE = 'serve [--data DIR] [--port N] [--token T | --token-file FILE] [--host NAME[,NAME...]] [--engines production|test] [--no-dispatch] [--demo] [--worker-listen HOST:PORT]';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Serve the app and its API on 127.0.0.1 for a browser (headless). The token may also come from BACKLOT_TOKEN.',
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, {
      data: { type: 'string' }, port: { type: 'string' }, token: { type: 'string' }, 'token-file': { type: 'string' },
      host: { type: 'string' }, engines: { type: 'string' }, 'no-dispatch': { type: 'boolean' }, 'test-chunk-ms': { type: 'string' }, demo: { type: 'boolean' },
      'worker-listen': { type: 'string' },
    }, USAGE);
    const engines = engineProfileFlag(values.engines);
    const test = testEngineOptions(engines, values['test-chunk-ms'], process.env.BACKLOT_TEST_FAULTS, process.env.BACKLOT_TEST_LONG_LIVED);
    if (positionals.length > 0) throw new CliUsageError(`serve takes no arguments, got "${positionals[0]}". Usage: ${USAGE}`);
    const port = portFlag(values.port);
    // Checked here even without a pool, so a typo is found before the day a pool is added.
    if (values['worker-listen'] !== undefined) parseListen(values['worker-listen']);
    const allowedHosts = values.host === undefined ? [] : values.host.split(',').filter((h) => h.trim() !== '').map(normalizeAllowedHost);
    const token = tokenFromSources({ flag: values.token, file: values['token-file'], env: process.env.BACKLOT_TOKEN });
    const hostFaults = engines === 'test' ? parseHostFaults(process.env.BACKLOT_TEST_HOST_FAULTS) : undefined;

    if (values['token-file'] !== undefined && tokenFileIsShared(values['token-file'])) {
      process.stderr.write(`backlot: warning: ${values['token-file']} can be read by other users of this machine; chmod 600 it to keep the token secret.\n`);
    }
    if (!fs.existsSync(path.join(DEFAULT_RENDERER_DIR, 'index.html'))) {
      process.stderr.write('backlot: the window is not built yet; run "npx electron-vite build" first (the API works meanwhile).\n');
    }
    const stop = listenForStop();
    let app: Awaited<ReturnType<typeof startHeadlessApp>>;
    try {
      app = await startHeadlessApp({
        dataDir: path.dirname(databaseFile(values.data)),
        dispatch: !values['no-dispatch'],
        engines,
        test,
        // Without --port the last start's port is reused (kept in the data folder, as the token).
        port: values.port === undefined ? undefined : port,
        token,
        allowedHosts,
        rememberAddress: true,
        onNotice: (line) => process.stderr.write(`${line}\n`),
        wrapHandlers: hostFaults ? (h) => withHostFaults(h, hostFaults) : undefined,
        demo: values.demo === true,
        workerListen: values['worker-listen'],
      }, openCliApp);
    } catch (e) {
      stop.dispose();
      throw e;
    }
    // An error nothing else caught stops the app the way SIGTERM does before the process exits.
    const forgetFatalStop = onFatalStop(() => app.stop());
    process.stdout.write(`Backlot is serving at ${app.server.url}\n`);
    if (app.app.workerDoor) process.stdout.write(`Worker door for the pools at ${app.app.workerDoor.url}\n`);

    await stop.requested;
    await app.stop();
    forgetFatalStop();
    return 0;
  },
};

function portFlag(value: string | undefined): number {
  if (value === undefined) return 0;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new CliUsageError(`--port must be a whole number from 0 to 65535, got "${value}".`);
  return n;
}
