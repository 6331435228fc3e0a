// Where the app's own files are, from any of the places its code runs: the TypeScript sources
// under vitest, the build in out/main (entry, chunk or engine program), or a packaged app's archive
// and its unpacked twin. One rule, so the host, the CLI and every engine find the same folders
// (docs/desktop.md "One runtime").
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding package.json above `from`: the checkout, or a package's app.asar(.unpacked). */
export function appRoot(from: string = fileURLToPath(import.meta.url)): string {
  const packaged = packagedResources(from);
  if (packaged !== null) return path.join(packaged, 'app.asar');
  for (let dir = path.dirname(from); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`No package.json above ${from}: Backlot's files are not where its code is.`);
  }
}

/**
 * A packaged app's resources folder (the one holding app.asar, app.asar.unpacked and the
 * extraResources), or null outside a package. Read from the path, so an engine started from
 * app.asar.unpacked needs no variable to find it.
 */
export function packagedResources(from: string = fileURLToPath(import.meta.url)): string | null {
  const parts = from.split(/[\\/]/);
  const at = parts.findIndex((p) => p === 'app.asar' || p === 'app.asar.unpacked');
  return at > 0 ? parts.slice(0, at).join(path.sep) || path.sep : null;
}

/**
 * The bundled assets (icons, tray images, models): BACKLOT_RESOURCES when whatever starts the app
 * sets it, else the package's resources folder, else resources/ in the checkout.
 */
export function resourcesDir(env: NodeJS.ProcessEnv = process.env, from: string = fileURLToPath(import.meta.url)): string {
  if (env.BACKLOT_RESOURCES) return path.resolve(env.BACKLOT_RESOURCES);
  return packagedResources(from) ?? path.join(appRoot(from), 'resources');
}

/**
 * A file of the build (`engines/<id>/program.js`, `sim/preview-worker.js`) as a real file: from
 * the checkout's out/main, or a package's app.asar.unpacked when it was unpacked there (a child
 * process cannot start a program inside the archive).
 */
export function builtMainFile(relative: string, from: string = fileURLToPath(import.meta.url)): string {
  const root = appRoot(from);
  const inArchive = path.join(root, 'out', 'main', relative);
  if (path.basename(root) === 'app.asar') {
    const unpacked = path.join(`${root}.unpacked`, 'out', 'main', relative);
    if (fs.existsSync(unpacked)) return unpacked;
  }
  return inArchive;
}
