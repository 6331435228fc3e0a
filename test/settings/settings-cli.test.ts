import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseSettingInput } from '../../src-shared/settings/settings-schema';
import { openDatabase } from '../../src-main/db/connection';

let dir: string;
// Settings are a library's: the folder gets its database first (the settings command itself
// refuses a folder without one, see test/cli/data-dir.test.ts).
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-settings-cli-'));
  openDatabase(path.join(dir, 'backlot.sqlite')).close();
});
afterAll(() => { fs.rmSync(dir, { recursive: true, force: true }); });

const cli = (...args: string[]) => spawnSync(process.execPath, ['bin/backlot.mjs', 'settings', ...args, '--data', dir], { encoding: 'utf8', env: { ...process.env, BACKLOT_DEBUG: '' } });

/** A refusal is one line on stderr with the code, and never a stack trace. */
function expectRefusal(r: ReturnType<typeof cli>, status: number, pattern: RegExp): void {
  expect(r.status).toBe(status);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('parseSettingInput', () => {
  it('reads text by the key\'s input kind', () => {
    expect(parseSettingInput('lanes.cpu.slots', '3')).toEqual({ ok: true, value: 3 });
    expect(parseSettingInput('diskGate.shutBelowBytes', '5e9')).toEqual({ ok: true, value: 5e9 });
    expect(parseSettingInput('lanes.cpu.slots', '')).toMatchObject({ ok: false });
    expect(parseSettingInput('lanes.cpu.slots', '0x10')).toMatchObject({ ok: false });
    expect(parseSettingInput('spend.capUsd', 'null')).toEqual({ ok: true, value: null });
    expect(parseSettingInput('spend.window', 'month')).toEqual({ ok: true, value: 'month' });
    expect(parseSettingInput('quietHours', '[]')).toEqual({ ok: true, value: [] });
    expect(parseSettingInput('quietHours', '[{')).toMatchObject({ ok: false, problem: 'must be written as JSON' });
  });
});

describe('backlot settings (real process)', () => {
  it('lists every key, gets and sets a value, and it persists', () => {
    const list = cli('list', '--json');
    expect(list.status).toBe(0);
    const keys = (JSON.parse(list.stdout) as { settings: { key: string }[] }).settings.map((s) => s.key);
    expect(keys).toContain('lanes.remote.slots');
    expect(keys).toContain('engines.stallTimeoutS');

    const set = cli('set', 'lanes.download.slots', '3');
    expect(set.stderr).toBe('');
    expect(set.status).toBe(0);
    expect(set.stdout).toBe('lanes.download.slots = 3\n');
    expect(cli('get', 'lanes.download.slots').stdout).toBe('3\n');
    expect(cli('list').stdout).toMatch(/^\* lanes\.download\.slots\s+3\s+live/m);

    expect(cli('set', 'quietHours', '[{"lane":"download","from":"22:00","to":"06:00"}]').status).toBe(0);
    expect(JSON.parse(cli('get', 'quietHours', '--json').stdout)).toMatchObject({ key: 'quietHours', value: [{ lane: 'download', from: '22:00', to: '06:00' }] });
  });

  it('refuses bad input in one line with the code and exit 1', () => {
    expectRefusal(cli('get', 'lanes.tpu.slots'), 1, /^backlot: UNKNOWN_SETTING: There is no setting "lanes\.tpu\.slots"/);
    expectRefusal(cli('set', 'retry.maxAttempts', 'three'), 1, /^backlot: SETTING_WRONG_TYPE: Setting "retry\.maxAttempts" must be a number/);
    expectRefusal(cli('set', 'lanes.cpu.slots', '-1'), 1, /^backlot: SETTING_OUT_OF_RANGE: Setting "lanes\.cpu\.slots" must be at least 0; got -1\.$/);
    expectRefusal(cli('set', 'diskGate.shutBelowBytes', '6e10'), 1, /^backlot: SETTING_CONFLICT: .*must not exceed diskGate\.drainingBelowBytes/);
    expectRefusal(cli('set', 'quietHours', '[{'), 1, /^backlot: SETTING_WRONG_TYPE: Setting "quietHours" must be written as JSON/);
  });

  it('refuses a restart key without --restart-ok and takes it with', () => {
    expectRefusal(cli('set', 'claims.leaseS', '90'), 1, /^backlot: RESTART_REQUIRED: .*add --restart-ok/);
    expect(cli('get', 'claims.leaseS').stdout).toBe('60\n');
    const ok = cli('set', 'claims.leaseS', '90', '--restart-ok');
    expect(ok.status).toBe(0);
    expect(ok.stdout).toBe('claims.leaseS = 90 (takes effect after Backlot restarts)\n');
  });

  it('answers a usage mistake with exit 2', () => {
    expectRefusal(cli('frobnicate'), 2, /^backlot: settings needs list, get or set/);
    expectRefusal(cli('set', 'retry.baseS'), 2, /^backlot: settings set takes 2 argument/);
    expectRefusal(cli('list', '--bogus'), 2, /^backlot: .*bogus/);
  });
});
