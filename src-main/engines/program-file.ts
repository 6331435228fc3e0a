// Where an engine's program is: beside its adapter as TypeScript in a checkout (run through tsx),
// or, in a built app, where electron.vite.config.ts builds it (out/main/engines/<id>/program.js,
// beside the bundle the adapter was bundled into, or a few folders above one of its chunks).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function engineProgram(adapterUrl: string, engineFolder: string): string {
  const source = fileURLToPath(new URL('./program.ts', adapterUrl));
  if (fs.existsSync(source)) return source;
  const self = fileURLToPath(adapterUrl);
  for (let dir = path.dirname(self), hops = 0; hops < 4; dir = path.dirname(dir), hops++) {
    const built = path.join(dir, 'engines', engineFolder, 'program.js');
    if (fs.existsSync(built)) return built;
  }
  return path.join(path.dirname(self), 'engines', engineFolder, 'program.js');
}
