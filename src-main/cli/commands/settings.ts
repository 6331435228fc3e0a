// `backlot settings list|get|set`: the settings store from a terminal, with the same validation
// and the same restart rule the settings page gets.
import { openDatabase } from '../../db/connection';
import { existingLibraryFile } from '../data-dir';
import { CliUsageError, parseCommandArgs } from '../args';
import { SettingsStore, requireSettingKey } from '../../settings/settings-store';
import { BacklotError, isBacklotError } from '../../../src-shared/errors';
import { SETTINGS, parseSettingInput } from '../../../src-shared/settings/settings-schema';
import type { Command } from './index';

const USAGE = 'backlot settings list | get KEY | set KEY VALUE [--restart-ok] [--data DIR] [--json]';
const FLAGS = {
  data: { type: 'string' },
  json: { type: 'boolean' },
  'restart-ok': { type: 'boolean' },
} as const;

export const settingsCommand: Command = {
  name: 'settings',
  summary: 'List, read or change settings',
  usage: 'settings list | get KEY | set KEY VALUE [--restart-ok]',
  async run(args) {
    // A negative number is a value, not an option: hand it to the parser as a positional.
    const negatives = args.filter(isNegativeNumber);
    const { values, positionals } = parseCommandArgs([...args.filter((a) => !isNegativeNumber(a)), '--', ...negatives], FLAGS, USAGE);
    const [verb, key, value, ...extra] = positionals;
    const want = verb === 'list' ? 1 : verb === 'get' ? 2 : verb === 'set' ? 3 : -1;
    if (want < 0) throw new CliUsageError(`settings needs list, get or set. Usage: ${USAGE}`);
    if (positionals.length !== want || extra.length > 0) throw new CliUsageError(`settings ${verb} takes ${want - 1} argument(s). Usage: ${USAGE}`);
    const db = openDatabase(existingLibraryFile(values.data));
    try {
      const store = new SettingsStore(db);
      if (verb === 'list') {
        const entries = store.all();
        if (values.json) {
          out(JSON.stringify({ settings: entries }, null, 2));
        } else {
          const width = Math.max(...entries.map((e) => e.key.length));
          for (const e of entries) {
            const mark = e.isDefault ? ' ' : '*';
            out(`${mark} ${e.key.padEnd(width)}  ${render(e.value).padEnd(14)}  ${e.applies.padEnd(7)}  ${e.description}`);
          }
          out('(* changed from the default; restart: takes effect after Backlot restarts)');
        }
        return 0;
      }
      requireSettingKey(key);
      const k = key;
      if (verb === 'get') {
        const v = store.get(k);
        out(values.json ? JSON.stringify({ key: k, value: v, default: SETTINGS[k].default, applies: SETTINGS[k].applies }) : render(v));
        return 0;
      }
      const parsed = parseSettingInput(k, value);
      if (!parsed.ok) throw new BacklotError('SETTING_WRONG_TYPE', `Setting "${k}" ${parsed.problem}; got ${JSON.stringify(value)}.`, { key: k });
      let result;
      try {
        result = store.set(k, parsed.value, { restartAcknowledged: values['restart-ok'] === true });
      } catch (e) {
        if (isBacklotError(e) && e.code === 'RESTART_REQUIRED') {
          throw new BacklotError(e.code, `Setting "${k}" takes effect only after Backlot restarts; add --restart-ok to change it anyway.`, e.params);
        }
        throw e;
      }
      if (values.json) out(JSON.stringify(result));
      else out(`${k} = ${render(result.value)}${result.restartPending ? ' (takes effect after Backlot restarts)' : ''}`);
      return 0;
    } finally {
      db.close();
    }
  },
};

function isNegativeNumber(a: string): boolean {
  return /^-(\d|\.\d)/.test(a);
}

function render(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}
