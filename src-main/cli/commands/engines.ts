// `backlot engines`: every engine of the catalog in this build, whether `engines.<operation>`
// enables it, its lane, what its preflight says here and its fingerprint.
import type { Command } from './index';
import { CliUsageError, parseCommandArgs } from '../args';
import { withApp } from '../app';
import { engineProfileFlag } from '../engine-flags';

const USAGE = 'engines [--engines production|test] [--data DIR] [--json]';

export const enginesCommand: Command = {
  name: 'engines',
  summary: 'List the engines: enabled or not, their lane, preflight and fingerprint',
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, { data: { type: 'string' }, json: { type: 'boolean' }, engines: { type: 'string' } }, USAGE);
    if (positionals.length > 0) throw new CliUsageError(`engines takes no arguments. Usage: backlot ${USAGE}`);
    const profile = engineProfileFlag(values.engines);
    return withApp(values.data, async (app) => {
      await app.dispatcher.prepare();
      const engines = app.dispatcher.registry.engines.map((e) => ({
        id: e.adapter.id, operation: e.adapter.operation, lane: e.lane.queueKey, enabled: e.enabled,
        preflight: e.preflight.ok ? { ok: true } : { ok: false, code: e.preflight.code, message: e.preflight.message },
        fingerprint: e.fingerprint,
      }));
      if (values.json) {
        process.stdout.write(`${JSON.stringify({ engines })}\n`);
        return 0;
      }
      if (engines.length === 0) process.stdout.write('No engine of this build is installed.\n');
      for (const e of engines) {
        const state = !e.enabled ? 'disabled' : e.preflight.ok ? 'ready' : `cannot run: ${e.preflight.code}: ${e.preflight.message}`;
        process.stdout.write(`${e.operation.padEnd(17)} ${e.id.padEnd(20)} ${e.lane.padEnd(9)} ${state}\n`);
      }
      return 0;
    }, { engines: profile });
  },
};
