// The project-local Python environment the engines' installers fill (`.venv-engines/`, made by
// scripts/engines/*.sh): engines that run Python find its interpreter here. A packaged app or a
// test may point elsewhere with BACKLOT_ENGINES_VENV.
import fs from 'node:fs';
import path from 'node:path';
import { appRoot } from '../system/app-layout';

export function enginesVenvDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BACKLOT_ENGINES_VENV) return path.resolve(env.BACKLOT_ENGINES_VENV);
  return path.join(appRoot(), '.venv-engines');
}

/** The venv's python, or null when the venv is absent. */
export function venvPython(venv = enginesVenvDir()): string | null {
  const candidates = process.platform === 'win32' ? [path.join(venv, 'Scripts', 'python.exe')] : [path.join(venv, 'bin', 'python3'), path.join(venv, 'bin', 'python')];
  return candidates.find((p) => fs.existsSync(p)) ?? null;
}
