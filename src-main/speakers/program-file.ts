// Where an engine's program is, from the source tree (src-main/engines/<id>/program.ts, run through
// tsx) or from the built app (electron.vite.config.ts builds each one to
// out/main/engines/<id>/program.js beside the bundle this module was bundled into).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function engineProgramFile(engineId: string, here: string = import.meta.url): string {
  const self = fileURLToPath(here);
  if (self.endsWith('.ts')) return path.resolve(path.dirname(self), '..', 'engines', engineId, 'program.ts');
  // Bundled: this code lives in out/main/index.js or one of its chunks; the programs sit in out/main/engines.
  for (let dir = path.dirname(self), hops = 0; hops < 4; dir = path.dirname(dir), hops++) {
    const built = path.join(dir, 'engines', engineId, 'program.js');
    if (fs.existsSync(built)) return built;
  }
  return path.join(path.dirname(self), 'engines', engineId, 'program.js');
}
