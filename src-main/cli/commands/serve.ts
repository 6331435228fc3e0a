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
import { onFatalStop } from '../../process/uncaught';
import { ENGINE_PROFILES, type EngineProfile } from '../../dispatch/engine-registry';

function isEngineProfile(value: string): value is EngineProfile {
  return (ENGINE_PROFILES as readonly string[]).includes(value);
}

const USAGE = 'serve [--data DIR] [--port N] [--token T | --token-file FILE] [--host NAME[,NAME...]] [--engines production|test] [--no-dispatch]';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Serve the app and its API on 127.0.0.1 for a browser (headless). The token may also come from BACKLOT_TOKEN.',
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, {
      data: { type: 'string' }, port: { type: 'string' }, token: { type: 'string' }, 'token-file': { type: 'string' },
      host: { type: 'string' }, engines: { type: 'string' }, 'no-dispatch': { type: 'boolean' }, 'test-chunk-ms': { type: 'string' },
    }, USAGE);
    const engines = values.engines ?? 'production';
    if (!isEngineProfile(engines)) throw new CliUsageError(`--engines must be one of ${ENGINE_PROFILES.join(', ')}, got "${engines}".`);
    const chunkMs = values['test-chunk-ms'] === undefined ? undefined : Number(values['test-chunk-ms']);
    if (chunkMs !== undefined && !(Number.isFinite(chunkMs) && chunkMs >= 0)) throw new CliUsageError(`--test-chunk-ms must be a number of milliseconds, got "${values['test-chunk-ms']}".`);
    if (positionals.length > 0) throw new CliUsageError(`serve takes no arguments, got "${positionals[0]}". Usage: ${USAGE}`);
    const port = portFlag(values.port);
    const allowedHosts = values.host === undefined ? [] : values.host.split(',').filter((h) => h.trim() !== '').map(normalizeAllowedHost);
    const token = tokenFromSources({ flag: values.token, file: values['token-file'], env: process.env.BACKLOT_TOKEN });
    const faults = engines === 'test' ? testFaults(process.env.BACKLOT_TEST_FAULTS) : undefined;
    const hostFaults = engines === 'test' ? parseHostFaults(process.env.BACKLOT_TEST_HOST_FAULTS) : undefined;

    if (values['token-file'] !== undefined && tokenFileIsShared(values['token-file'])) {
      process.stderr.write(`backlot: warning: ${values['token-file']} can be read by other users of this machine; chmod 600 it to keep the token secret.\n`);
    }
    if (!fs.existsSync(path.join(DEFAULT_RENDERER_DIR, 'index.html'))) {
      process.stderr.write('backlot: the window is not built yet; run "npx electron-vite build" first (the API works meanwhile).\n');
    }
    const app = await startHeadlessApp({
      dataDir: path.dirname(databaseFile(values.data)),
      dispatch: !values['no-dispatch'],
      engines,
      test: chunkMs === undefined && faults === undefined ? undefined : { chunkMs, faults },
      port,
      token,
      allowedHosts,
      wrapHandlers: hostFaults ? (h) => withHostFaults(h, hostFaults) : undefined,
    });
    // An error nothing else caught stops the app the way SIGTERM does before the process exits.
    const forgetFatalStop = onFatalStop(() => app.stop());
    // Listening for the stop signals before the URL is printed: whoever reads the URL may send
    // one at once, and a signal with no listener yet would end the process without its stop.
    const stopSignal = new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    process.stdout.write(`Backlot is serving at ${app.server.url}\n`);
    await stopSignal;
    await app.stop();
    forgetFatalStop();
    return 0;
  },
};

/**
 * `BACKLOT_TEST_FAULTS`: the test engines' misbehaviour on request, as JSON
 * `{ "<item>" | "<operation>:<item>": { crash | hang | garbage | exitCode | errorCode ...: value } }`.
 * Read only with `--engines test`; the production profile never sees it.
 */
function testFaults(value: string | undefined): Record<string, Record<string, unknown>> | undefined {
  if (value === undefined || value === '') return undefined;
  let parsed: unknown;
  try { parsed = JSON.parse(value); } catch { parsed = null; }
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(parsed) || !Object.values(parsed).every(isObject)) {
    throw new CliUsageError('BACKLOT_TEST_FAULTS must be a JSON object of objects, e.g. {"<item>": {"crash": 1}}.');
  }
  return parsed as Record<string, Record<string, unknown>>;
}

function portFlag(value: string | undefined): number {
  if (value === undefined) return 0;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new CliUsageError(`--port must be a whole number from 0 to 65535, got "${value}".`);
  return n;
}
