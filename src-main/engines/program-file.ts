// Where an engine's program is: always the built one (electron.vite.config.ts builds each
// src-main/engines/<id>/program.ts to out/main/engines/<id>/program.js), whether the adapter runs
// from the sources under vitest, from the build, or from a package; nothing runs through a
// TypeScript loader (docs/desktop.md "One runtime").
import path from 'node:path';
import { builtMainFile } from '../system/app-layout';

export function engineProgram(engineFolder: string): string {
  return builtMainFile(path.join('engines', engineFolder, 'program.js'));
}
