// Where yt-dlp is and how old it is (issue 10 "yt-dlp itself"): the project's own virtual
// environment (.venv-engines, installed by scripts/engines/20-yt-dlp.sh) first, then the path in
// the ytdlp.path setting, then PATH. Its version (a release date) goes into the preflight, with a
// warning when it is older than 90 days: platforms change and an old yt-dlp stops working.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { EngineEnvironment } from './adapter';
import type { Preflight } from '../arbiter/lanes';
import { engineEnvironment } from './program-command';

export const OUTDATED_AFTER_DAYS = 90;

export interface YtDlpBinary {
  path: string;
  version: string;
  /** The release date the version names (yt-dlp versions are YYYY.MM.DD[.N]), or null. */
  releasedAt: Date | null;
  source: 'project' | 'setting' | 'path';
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, process.platform === 'win32' ? `${name}.exe` : name);
    if (executable(candidate)) return candidate;
  }
  return null;
}

/** The project's virtual environment: beside resources/ in a checkout, or BACKLOT_ENGINES_VENV. */
export function projectVenv(env: Pick<EngineEnvironment, 'resourcesDir'>): string {
  return process.env.BACKLOT_ENGINES_VENV ?? path.join(path.dirname(env.resourcesDir), '.venv-engines');
}

export function locateYtDlp(env: Pick<EngineEnvironment, 'resourcesDir' | 'settings'>): { path: string; source: YtDlpBinary['source'] } | null {
  const venv = path.join(projectVenv(env), process.platform === 'win32' ? 'Scripts' : 'bin', process.platform === 'win32' ? 'yt-dlp.exe' : 'yt-dlp');
  if (executable(venv)) return { path: venv, source: 'project' };
  const configured = env.settings['ytdlp.path'];
  if (configured && executable(configured)) return { path: configured, source: 'setting' };
  const found = onPath('yt-dlp');
  return found ? { path: found, source: 'path' } : null;
}

export function releaseDate(version: string): Date | null {
  const m = /^(\d{4})\.(\d{2})\.(\d{2})/.exec(version.trim());
  if (!m) return null;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return Number.isFinite(d.getTime()) ? d : null;
}

const versions = new Map<string, Promise<string | null>>();

function versionOf(file: string): Promise<string | null> {
  const key = `${file}\0${fs.statSync(file).mtimeMs}`;
  let v = versions.get(key);
  if (!v) {
    v = new Promise((resolve) => {
      execFile(file, ['--version'], { timeout: 30_000, env: engineEnvironment(), windowsHide: true }, (err, stdout) => resolve(err ? null : String(stdout).trim().split('\n')[0] || null));
    });
    versions.set(key, v);
  }
  return v;
}

export async function findYtDlp(env: Pick<EngineEnvironment, 'resourcesDir' | 'settings'>): Promise<YtDlpBinary | null> {
  const found = locateYtDlp(env);
  if (!found) return null;
  const version = await versionOf(found.path);
  if (version === null) return null;
  return { ...found, version, releasedAt: releaseDate(version) };
}

/** The preflight both yt-dlp engines answer: found and runnable, with its version; a warning when old. */
export async function ytDlpPreflight(env: Pick<EngineEnvironment, 'resourcesDir' | 'settings'>, now: Date = new Date()): Promise<Preflight> {
  const bin = await findYtDlp(env);
  if (!bin) {
    return { ok: false, code: 'YTDLP_NOT_FOUND', message: 'yt-dlp was not found (not in .venv-engines, the ytdlp.path setting or PATH); run scripts/install-engines.sh.' };
  }
  const ageDays = bin.releasedAt ? Math.floor((now.getTime() - bin.releasedAt.getTime()) / 86_400_000) : null;
  const base = { ok: true as const, version: bin.version, binary: bin.path };
  if (ageDays !== null && ageDays > OUTDATED_AFTER_DAYS) {
    return { ...base, warning: { code: 'YTDLP_OUTDATED', message: `yt-dlp ${bin.version} is ${ageDays} days old; platforms change often, so update it (BACKLOT_UPGRADE_ENGINES=1 scripts/install-engines.sh).`, params: { version: bin.version, ageDays } } };
  }
  return base;
}
