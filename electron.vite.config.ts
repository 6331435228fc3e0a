// Builds the desktop app's three parts: main (the host), the preload bridge and the renderer.
// Runs without the Electron binary (it only reads Electron's version), so CI builds the window too.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'electron-vite';
import { rendererOptions } from './vite.renderer.config';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// Each engine's program (src-main/engines/<id>/program.ts) is an entry of its own, built to
// out/main/engines/<id>/program.js: engines run as separate processes (docs/desktop.md, "Engines
// under Electron"), and the package unpacks that folder from the archive.
const enginePrograms = Object.fromEntries(
  fs.readdirSync(here('./src-main/engines'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(here(`./src-main/engines/${d.name}/program.ts`)))
    .map((d) => [`engines/${d.name}/program`, here(`./src-main/engines/${d.name}/program.ts`)]),
);

const NATIVE = ['better-sqlite3', 'sherpa-onnx-node', '@fugood/whisper.node', 'node-llama-cpp'];

export default defineConfig({
  main: {
    build: {
      outDir: here('./out/main'),
      // Native bindings (SQLite, sherpa-onnx, whisper.cpp, llama.cpp: optional ones included) are
      // loaded from node_modules at run time, never bundled. The what-if preview simulates in a
      // worker thread of its own (docs/window.md "Rules and the preview"). The `backlot` command
      // (out/main/cli.js, started by bin/backlot.mjs) and the benchmark's trivial engine are built
      // here too: nothing runs through a TypeScript loader (docs/desktop.md "One runtime").
      // zod is bundled, not loaded from node_modules: as a package it is some ninety ES modules
      // (its locales among them) read, compiled and linked on every engine start; bundled, the
      // build keeps only what is used, in one chunk (docs/benchmarks.md "The command line", session 7).
      externalizeDeps: { include: NATIVE, exclude: ['zod'] },
      rollupOptions: {
        input: {
          index: here('./src-main/index.ts'),
          cli: here('./src-main/app/cli.ts'),
          'sim/preview-worker': here('./src-main/sim/preview-worker.ts'),
          'bench/trivial-engine': here('./src-main/bench/trivial-engine.ts'),
          'bench/load-window-worker': here('./src-main/bench/load-window-worker.ts'),
          ...enginePrograms,
        },
        // The window benchmark drives Chromium through the playwright-core devDependency, loaded
        // from node_modules when that benchmark runs (never by the app).
        external: [...NATIVE, 'playwright-core'],
      },
    },
  },
  preload: {
    build: {
      outDir: here('./out/preload'),
      // A sandboxed preload must be CommonJS, whatever the package's module type says.
      rollupOptions: {
        input: { index: here('./src-main/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: rendererOptions,
});
