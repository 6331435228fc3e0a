// Whether out/ is the build of the checkout as it is now, and the one way to (re)build it: the
// `backlot` command (bin/backlot.mjs), `npm run build` and the tests' global setup all use this, so
// nothing ever runs an old build of changed sources (docs/desktop.md "One runtime").
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = path.join(ROOT, 'out', '.build-stamp.json');
const LOCK = path.join(ROOT, 'out', '.build-lock');
/** Folders whose every file goes into the build. */
const SOURCE_DIRS = ['src-main', 'src-shared', 'src-renderer'];
/** Single files that change the build: the configuration and the lock (a changed lock means a new install). */
const SOURCE_FILES = ['package.json', 'package-lock.json', 'electron.vite.config.ts', 'vite.renderer.config.ts', 'tsconfig.json'];
/** What a build must have produced for the command, the engines and the window to run. */
const OUTPUTS = ['out/main/cli.js', 'out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html'];
/** Files the lint test writes into the source folders for a moment; never part of a build. */
const TRANSIENT = /__lint_fixture__/;

/**
 * Every source file's path, size and modification time, hashed: a file saved, added, removed or
 * checked out changes it (about 20 ms for the whole tree, so every `backlot` can afford it).
 */
export function sourceSignature() {
  const hash = createHash('sha256');
  const add = (file) => {
    const stat = fs.statSync(path.join(ROOT, file), { throwIfNoEntry: false });
    hash.update(`${file}\0${stat ? `${stat.size}:${stat.mtimeMs}` : '-'}\n`);
  };
  for (const file of SOURCE_FILES) add(file);
  const walk = (dir) => {
    const entries = fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (TRANSIENT.test(entry.name)) continue;
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else add(rel);
    }
  };
  for (const dir of SOURCE_DIRS) if (fs.existsSync(path.join(ROOT, dir))) walk(dir);
  return hash.digest('hex');
}

/** Why the build must be (re)made, or null when out/ is the build of these sources. */
export function staleReason() {
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(STAMP, 'utf8'));
  } catch {
    return 'there is no build yet';
  }
  const missing = OUTPUTS.find((f) => !fs.existsSync(path.join(ROOT, f)));
  if (missing) return `${missing} is missing`;
  return stamp.sources === sourceSignature() ? null : 'the sources changed since the last build';
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** A lock whose builder is gone (killed mid-build), or one without a pid after a minute, is dead. */
function lockIsDead() {
  let pid;
  try {
    pid = Number(fs.readFileSync(path.join(LOCK, 'pid'), 'utf8'));
  } catch {
    const age = Date.now() - (fs.statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    return age > 60_000;
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return e.code === 'ESRCH';
  }
}

/**
 * Builds (electron-vite: main with the CLI and engines, preload, renderer) and records the
 * sources' signature taken before it began: a source saved during the build makes the next run rebuild.
 * One build at a time per checkout (a lock folder); a caller that waited finds the fresh build.
 * `output` 'inherit' shows electron-vite's log; 'quiet' keeps stdout clean and prints it on failure.
 */
export function build({ output = 'inherit', onlyIfStale = false } = {}) {
  fs.mkdirSync(path.dirname(LOCK), { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      fs.writeFileSync(path.join(LOCK, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      if (lockIsDead()) fs.rmSync(LOCK, { recursive: true, force: true });
      else sleep(250);
    }
  }
  try {
    if (onlyIfStale && staleReason() === null) return;
    fs.rmSync(STAMP, { force: true });
    const startedAt = Date.now();
    const sources = sourceSignature();
    const cli = path.join(ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js');
    if (!fs.existsSync(cli)) {
      throw new Error('BUILD_TOOLS_MISSING: electron-vite is not installed here; run "npm ci" (with the dev dependencies) first.');
    }
    const r = spawnSync(process.execPath, [cli, 'build'], { cwd: ROOT, stdio: output === 'inherit' ? 'inherit' : 'pipe', encoding: 'utf8' });
    if (r.status !== 0) {
      if (output !== 'inherit') process.stderr.write(`${r.stdout ?? ''}${r.stderr ?? ''}`);
      throw new Error(`BUILD_FAILED: electron-vite build exited with ${r.status ?? r.signal}; its output is above.`);
    }
    // The command's full help, kept in out/main/help.txt by its first run (src-main/cli/commands/index.ts).
    spawnSync(process.execPath, [path.join(ROOT, 'out', 'main', 'cli.js'), '--help'], { cwd: ROOT, stdio: 'ignore' });
    fs.writeFileSync(STAMP, `${JSON.stringify({ sources, startedAt, finishedAt: Date.now() })}\n`);
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
}
