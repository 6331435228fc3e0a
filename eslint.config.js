// Lint rules that hold the layers apart (DESIGN §1): src-shared stays pure TypeScript that both
// sides can import, the window never reaches into the host, and every switch over a union is
// exhaustive so a new state or operation cannot be silently unhandled.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import vueParser from 'vue-eslint-parser';
import globals from 'globals';
import backlotRules from './eslint-rules/layers.js';

const root = import.meta.dirname;

const NODE_BUILTINS = builtinModules.filter((m) => !m.startsWith('_'));
const NOT_IN_SHARED = ['electron', 'better-sqlite3', 'systeminformation', 'ws', ...NODE_BUILTINS];

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'dist/**', 'coverage/**', '.tmp/**', 'test-results/**', '.venv-engines/**', 'resources/models/**'] },

  js.configs.recommended,
  ...tseslint.configs.recommended,

  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { ...globals.node } },
  },

  // CommonJS scripts (electron-builder's hooks are loaded with require).
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },

  // Type-aware linting for TypeScript, through the tsconfig that owns each file.
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: root },
    },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': ['error', {
        allowDefaultCaseForExhaustiveSwitch: true,
        considerDefaultExhaustiveForUnions: true,
        requireDefaultForNonUnion: false,
      }],
    },
  },

  // Vue single-file components: the template through vue-eslint-parser, the script through the
  // TypeScript parser. Logic with switches belongs in .ts modules, where the exhaustiveness check runs.
  {
    files: ['**/*.vue'],
    languageOptions: {
      parser: vueParser,
      parserOptions: { parser: tseslint.parser, sourceType: 'module', extraFileExtensions: ['.vue'] },
      globals: { ...globals.browser },
    },
  },

  // (a) src-shared is imported by the window and by the host alike: no Node, Electron or native code.
  {
    files: ['src-shared/**/*.{ts,vue,js}'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: NOT_IN_SHARED.map((name) => ({
          name,
          message: 'src-shared is pure TypeScript shared with the window: no Node builtins, Electron or native modules.',
        })),
        patterns: [{
          group: ['node:*', 'electron/*', 'better-sqlite3/*', 'systeminformation/*'],
          message: 'src-shared is pure TypeScript shared with the window: no Node builtins, Electron or native modules.',
        }],
      }],
    },
  },

  // (c) Inside the host, imports point down one ordered list of layers (eslint-rules/layers.js).
  {
    files: ['src-main/**/*.ts'],
    plugins: { backlot: backlotRules },
    rules: { 'backlot/layers': 'error' },
  },

  // (b) The window holds no authority: it talks to the host through the API contract only.
  {
    files: ['src-renderer/**/*.{ts,vue,js}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{
          group: ['**/src-main', '**/src-main/**', 'src-main', 'src-main/**'],
          message: 'src-renderer must not import src-main; call the host through the API contract (src-shared/api).',
        }],
      }],
    },
  },
);
