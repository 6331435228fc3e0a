// The layer rules in eslint.config.js are only worth having if they fire: lint tiny fixtures that
// break each one (as if they lived in the guarded folders) and expect the violation by name.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let eslint: ESLint;

// The fixtures exist only as text, so the type-aware parser is told to give those exact paths a
// default project; everything else (which rules apply where) is the real eslint.config.js.
const FIXTURES = ['src-shared/__lint_fixture__.ts', 'src-main/__lint_fixture__.ts', 'src-renderer/src/__lint_fixture__.ts',
  'src-main/work/__lint_fixture__.ts', 'src-main/arbiter/__lint_fixture__.ts', 'src-main/newfolder/__lint_fixture__.ts'];

beforeAll(() => {
  eslint = new ESLint({
    cwd: root,
    overrideConfig: {
      files: ['**/*.ts'],
      languageOptions: {
        parserOptions: { projectService: { allowDefaultProject: FIXTURES, defaultProject: 'tsconfig.json' }, tsconfigRootDir: root },
      },
    },
  });
});

async function lint(relativePath: string, code: string) {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, relativePath) });
  const fatal = result.messages.filter((m) => m.fatal);
  expect(fatal, 'the fixture must parse').toEqual([]);
  return result.messages.map((m) => ({ rule: m.ruleId, line: m.line, message: m.message }));
}

describe('src-shared stays pure', () => {
  it('reports node builtins (with and without node:), electron, better-sqlite3 and systeminformation', async () => {
    const messages = await lint('src-shared/__lint_fixture__.ts', [
      "import fs from 'node:fs';",
      "import path from 'path';",
      "import { spawn } from 'child_process';",
      "import { EventEmitter } from 'events';",
      "import os from 'os';",
      "import { app } from 'electron';",
      "import Database from 'better-sqlite3';",
      "import si from 'systeminformation';",
      'export const all = [fs, path, spawn, EventEmitter, os, app, Database, si];',
    ].join('\n'));
    const restricted = messages.filter((m) => m.rule === 'no-restricted-imports');
    expect(restricted.map((m) => m.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(restricted[0].message).toMatch(/src-shared is pure/);
  });

  it('leaves a pure module alone', async () => {
    const messages = await lint('src-shared/__lint_fixture__.ts', "import { z } from 'zod';\nexport const s = z.string();\n");
    expect(messages).toEqual([]);
  });

  it('does not restrict the host', async () => {
    const messages = await lint('src-main/__lint_fixture__.ts', "import fs from 'node:fs';\nexport const f = fs;\n");
    expect(messages.filter((m) => m.rule === 'no-restricted-imports')).toEqual([]);
  });
});

describe('src-renderer never imports src-main', () => {
  it('reports a relative import into src-main from a .ts module', async () => {
    const messages = await lint('src-renderer/src/__lint_fixture__.ts',
      "import { Host } from '../../src-main/host/host';\nexport type H = Host;\n");
    expect(messages.filter((m) => m.rule === 'no-restricted-imports').map((m) => m.line)).toEqual([1]);
  });

  it('reports it from a .vue component too', async () => {
    const messages = await lint('src-renderer/src/components/__LintFixture.vue', [
      '<script setup lang="ts">',
      "import { dispatch } from '../../../src-main/api/dispatch';",
      'const d = dispatch;',
      '</script>',
      '<template><p>{{ d }}</p></template>',
    ].join('\n'));
    expect(messages.filter((m) => m.rule === 'no-restricted-imports').map((m) => m.line)).toEqual([2]);
  });

  it('allows the shared contract', async () => {
    const messages = await lint('src-renderer/src/__lint_fixture__.ts',
      "import type { ApiMethod } from '../../src-shared/api/contract';\nexport type M = ApiMethod;\n");
    expect(messages).toEqual([]);
  });
});

describe('src-main imports point down its layers', () => {
  it('refuses an upward import, naming both layers', async () => {
    const messages = await lint('src-main/work/__lint_fixture__.ts',
      "import type { Dispatcher } from '../dispatch/dispatcher';\nimport type { Arbiter } from '../arbiter/arbiter';\nexport type X = [Dispatcher, Arbiter];\n");
    const hits = messages.filter((m) => m.rule === 'backlot/layers');
    expect(hits.map((m) => m.line)).toEqual([1, 2]);
    expect(hits[0].message).toBe('work (layer 2) must not import dispatch (layer 7): imports point down the layers in eslint-rules/layers.js.');
  });

  it('allows imports down the layers and within one', async () => {
    const messages = await lint('src-main/arbiter/__lint_fixture__.ts', [
      "import type { Db } from '../db/connection';",
      "import type { LaneHolds } from '../gates/pause';",
      "import type { ClaimStore } from './claims';",
      "import type { BacklotError } from '../../src-shared/errors';",
      'export type X = [Db, LaneHolds, ClaimStore, BacklotError];',
    ].join('\n'));
    expect(messages.filter((m) => m.rule === 'backlot/layers')).toEqual([]);
  });

  it('refuses a folder that has no place in the layers', async () => {
    const messages = await lint('src-main/newfolder/__lint_fixture__.ts', "import type { Db } from '../db/connection';\nexport type X = Db;\n");
    expect(messages.filter((m) => m.rule === 'backlot/layers').map((m) => m.message)).toEqual(['src-main/newfolder is in no layer: add it to LAYERS in eslint-rules/layers.js.']);
  });
});

describe('switches over unions are exhaustive', () => {
  it('reports a switch that misses a member', async () => {
    const messages = await lint('src-main/__lint_fixture__.ts', [
      "type State = 'done' | 'missing' | 'blocked';",
      'export function label(s: State): string {',
      '  switch (s) {',
      "    case 'done': return 'Done';",
      "    case 'missing': return 'Missing';",
      '  }',
      "  return '?';",
      '}',
    ].join('\n'));
    const hits = messages.filter((m) => m.rule === '@typescript-eslint/switch-exhaustiveness-check');
    expect(hits).toHaveLength(1);
    expect(hits[0].message).toMatch(/blocked/);
  });
});
