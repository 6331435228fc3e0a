// Builds the headless shell around a host on a data folder: the host (and its database) lives
// exactly as long as the server, and stopping one stops both.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Host } from '../../host/host';
import { createHandlers } from '../../api/handlers';
import { startHeadlessServer, type HeadlessServer } from './server';

/** electron-vite's renderer output in this checkout, wherever the command is run from. */
export const DEFAULT_RENDERER_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../out/renderer');

export interface HeadlessAppOptions {
  databaseFile: string;
  port?: number;
  token?: string;
  rendererDir?: string;
}

export interface HeadlessApp {
  host: Host;
  server: HeadlessServer;
  stop(): Promise<void>;
}

export async function startHeadlessApp(options: HeadlessAppOptions): Promise<HeadlessApp> {
  const host = new Host({ databaseFile: options.databaseFile });
  let server: HeadlessServer;
  try {
    server = await startHeadlessServer({
      handlers: createHandlers(host),
      subscribe: (listener) => host.onEvent(listener),
      rendererDir: options.rendererDir ?? DEFAULT_RENDERER_DIR,
      port: options.port,
      token: options.token,
      onInternalError: (method, error) => console.error(`backlot: internal error in ${method}:`, error),
    });
  } catch (e) {
    host.close();
    throw e;
  }
  let stopping: Promise<void> | null = null;
  return {
    host,
    server,
    stop() {
      stopping ??= server.close().finally(() => host.close());
      return stopping;
    },
  };
}
