// Builds the headless shell around a host on a data folder: the host (and its database) lives
// exactly as long as the server, and stopping one stops both.
import path from 'node:path';
import { appRoot } from '../../system/app-layout';
import type { Host } from '../../host/host';
import type { BacklotApp, OpenApp } from '../../dispatch/backlot-app';
import type { EngineProfile } from '../../engines/adapter';
import type { TestEngineOptions } from '../../engines/test-engine/adapter';
import { createHandlers } from '../../api/handlers';
import { MediaTickets } from '../../api/media-tickets';
import { MEDIA_PREFIX } from './media-files';
import type { ApiHandlers } from '../../../src-shared/api/contract';
import { startHeadlessServer, type HeadlessServer, type HeadlessServerOptions } from './server';
import { ReadMemo } from './read-memo';
import { readRememberedAddress, rememberAddress } from './remembered-address';
import { BacklotError } from '../../../src-shared/errors';

/** electron-vite's renderer output in this checkout, wherever the command is run from. */
export const DEFAULT_RENDERER_DIR = path.join(appRoot(), 'out', 'renderer');

export interface HeadlessAppOptions {
  dataDir: string;
  /** Start dispatching work (default true); off for a read-only window. */
  dispatch?: boolean;
  engines?: EngineProfile;
  test?: TestEngineOptions;
  port?: number;
  token?: string;
  /** Host names accepted besides the loopback ones (`--host`). */
  allowedHosts?: readonly string[];
  rendererDir?: string;
  /** `--worker-listen HOST:PORT` for the worker door (opened only when a pool exists). */
  workerListen?: string;
  /** An empty library gets the demo library (`backlot serve --demo`). */
  demo?: boolean;
  /**
   * Reuse the port and token the last start kept in the data folder, and keep this start's
   * (`backlot serve`; docs/window.md "Restarting the headless shell"). `port` and `token`, when
   * given, win over the kept ones.
   */
  rememberAddress?: boolean;
  /** One line for the person who started the shell (a port that had to change). */
  onNotice?: (line: string) => void;
  /** For the reliability tests' host faults (host-faults.ts): wraps the API handlers. */
  wrapHandlers?: (handlers: ApiHandlers) => ApiHandlers;
}

export interface HeadlessApp {
  host: Host;
  app: BacklotApp;
  server: HeadlessServer;
  stop(): Promise<void>;
}

/** `open` is the app opener the entry point hands down (src-main/app/open-app.ts). */
export async function startHeadlessApp(options: HeadlessAppOptions, open: OpenApp): Promise<HeadlessApp> {
  const app = await open({ dataDir: options.dataDir, dispatch: options.dispatch ?? true, engines: options.engines, test: options.test, workerListen: options.workerListen });
  const host = app.host;
  let server: HeadlessServer;
  // One ticket book for the API that issues media links and the door that serves them.
  const tickets = new MediaTickets(host);
  const handlers = createHandlers(host, app.dispatcher, { media: { tickets, url: (ticket) => `${MEDIA_PREFIX}${ticket}` } });
  try {
    if (options.demo && host.library.channels().length === 0) await handlers['library.demo']({});
    const serverOptions: HeadlessServerOptions = {
      handlers: options.wrapHandlers ? options.wrapHandlers(handlers) : handlers,
      media: tickets,
      subscribe: (listener) => host.onEvent(listener),
      rendererDir: options.rendererDir ?? DEFAULT_RENDERER_DIR,
      port: options.port,
      token: options.token,
      allowedHosts: options.allowedHosts,
      onInternalError: (method, error) => console.error(`backlot: internal error in ${method}:`, error),
      // A fault-injecting wrapper must meet every call, so its answers are never kept.
      readMemo: options.wrapHandlers ? undefined : new ReadMemo(() => host.libraryVersion()),
    };
    server = options.rememberAddress ? await startOnRememberedAddress(options, serverOptions) : await startHeadlessServer(serverOptions);
  } catch (e) {
    await app.close();
    throw e;
  }
  let stopping: Promise<void> | null = null;
  return {
    host,
    app,
    server,
    stop() {
      stopping ??= server.close().finally(() => app.close());
      return stopping;
    },
  };
}

async function startOnRememberedAddress(options: HeadlessAppOptions, serverOptions: HeadlessServerOptions): Promise<HeadlessServer> {
  const kept = readRememberedAddress(options.dataDir);
  const token = options.token ?? kept.token;
  let server: HeadlessServer;
  if (options.port === undefined && kept.port !== undefined) {
    try {
      server = await startHeadlessServer({ ...serverOptions, port: kept.port, token });
    } catch (e) {
      if (!(e instanceof BacklotError) || e.code !== 'PORT_UNAVAILABLE') throw e;
      // Someone else has the old port: any free one, said aloud, since open tabs will not find it.
      server = await startHeadlessServer({ ...serverOptions, port: 0, token });
      options.onNotice?.(`backlot: port ${kept.port} (used by the last start) is taken; serving on port ${server.port} instead, with the same token. Open the new address in your tabs.`);
    }
  } else {
    server = await startHeadlessServer({ ...serverOptions, token });
  }
  try {
    // A token the person gave (flag, file, environment) stays theirs to keep; only ours is written.
    rememberAddress(options.dataDir, { port: server.port, token: options.token === undefined ? server.token : kept.token });
  } catch (e) {
    options.onNotice?.(`backlot: could not keep the address for the next start (${(e as Error).message}); the next start may get a new one.`);
  }
  return server;
}
