// `backlot settings list|get|set`: the settings store from a terminal, with the same validation
// and the same restart rule the settings page gets.
import { openDatabase } from '../../db/connection';
import { existingLibraryFile } from '../data-dir';
import { CliUsageError, parseCommandArgs } from '../args';
import { SettingsStore, requireSettingKey } from '../../settings/settings-store';
import { BacklotError, isBacklotError } from '../../../src-shared/errors';
import { SECRET_SET, SETTINGS, isSecretSetting, parseSettingInput, type SettingKey } from '../../../src-shared/settings/settings-schema';
import fs from 'node:fs';
import type { Command } from './index';
import { channelSetting } from './channel-setting';

const USAGE = 'backlot settings list | get KEY | set KEY VALUE [--restart-ok] [--data DIR] [--json] (VALUE - reads a write-only value from stdin)'
  + ' | get|set|unset KEY [VALUE] --channel ID (a channel\'s own value: transcribe.prompt)';
const FLAGS = {
  data: { type: 'string' },
  channel: { type: 'string' },
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
    const want = verb === 'list' ? 1 : verb === 'get' ? 2 : verb === 'set' ? 3 : verb === 'unset' && values.channel !== undefined ? 2 : -1;
    if (want < 0) throw new CliUsageError(`settings needs list, get or set (unset only with --channel). Usage: ${USAGE}`);
    if (verb === 'list' && values.channel !== undefined) throw new CliUsageError(`settings list takes no --channel; get KEY --channel ID reads a channel's value. Usage: ${USAGE}`);
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
            out(`${mark} ${e.key.padEnd(width)}  ${shown(e.key, e.value).padEnd(14)}  ${e.applies.padEnd(7)}  ${e.description}`);
          }
          out('(* changed from the default; restart: takes effect after Backlot restarts)');
        }
        return 0;
      }
      requireSettingKey(key);
      const k = key;
      if (values.channel !== undefined) {
        const answer = channelSetting(db, verb as 'get' | 'set' | 'unset', values.channel, k, value);
        out(values.json ? JSON.stringify(answer) : `${k} = ${render(answer.value)} (${answer.own ? `channel ${answer.channel}'s own` : 'the library\'s, the channel sets none'})`);
        return 0;
      }
      if (verb === 'get') {
        const v = store.get(k);
        const secret = isSecretSetting(k) ? { secret: true, set: v === SECRET_SET } : {};
        out(values.json ? JSON.stringify({ key: k, value: v, default: SETTINGS[k].default, applies: SETTINGS[k].applies, ...secret }) : shown(k, v));
        return 0;
      }
      // A key typed on the command line lands in the shell's history: "-" reads it from stdin instead.
      const typed = isSecretSetting(k) && value === '-' ? fs.readFileSync(0, 'utf8').replace(/\r?\n$/, '') : value;
      const parsed = parseSettingInput(k, typed);
      if (!parsed.ok) throw new BacklotError('SETTING_WRONG_TYPE', `Setting "${k}" ${parsed.problem}; got ${JSON.stringify(typed)}.`, { key: k });
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
      else out(`${k} = ${shown(k, result.value)}${result.restartPending ? ' (takes effect after Backlot restarts)' : ''}`);
      return 0;
    } finally {
      db.close();
    }
  },
};

function isNegativeNumber(a: string): boolean {
  return /^-(\d|\.\d)/.test(a);
}

/** A write-only setting shows only whether it is set. */
function shown(key: SettingKey, v: unknown): string {
  if (isSecretSetting(key)) return v === SECRET_SET ? '(set)' : '(not set)';
  return render(v);
}

function render(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}
