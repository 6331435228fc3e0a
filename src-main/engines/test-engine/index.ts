// Where the test engine lives and how to start it, so tests and the headless crash test launch
// it exactly as the host launches any engine: a real child process, no shell.
import path from 'node:path';
import { appRoot } from '../../system/app-layout';
import type { EngineCommand } from '../runner';

// A plain .mjs in the sources (never built): found from the checkout's root, so the built CLI runs it too.
export const TEST_ENGINE_PATH = path.join(appRoot(), 'src-main', 'engines', 'test-engine', 'engine.mjs');

/** Runs engine.mjs with this process's own node (Electron's binary acts as node with ELECTRON_RUN_AS_NODE). */
export function testEngineCommand(operands: readonly string[] = []): EngineCommand {
  const env = process.versions.electron ? { ...process.env, ELECTRON_RUN_AS_NODE: '1' } : undefined;
  return { command: process.execPath, args: [TEST_ENGINE_PATH], operands, ...(env ? { env } : {}) };
}
