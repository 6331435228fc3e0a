// Where an engine's program is: beside its adapter as TypeScript in a checkout (run through tsx),
// or, in a built app, where electron.vite.config.ts builds it (out/main/engines/<id>/program.js,
// next to the bundled host that imports the adapter).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function engineProgram(adapterUrl: string, engineFolder: string): string {
  const source = fileURLToPath(new URL('./program.ts', adapterUrl));
  if (fs.existsSync(source)) return source;
  return path.join(path.dirname(fileURLToPath(adapterUrl)), 'engines', engineFolder, 'program.js');
}
