// The library marker (docs/pools.md "Shared storage"): a small file `.backlot-library` holding the
// library's id, in the library's folder and in each host folder a shared-media pool maps, so a
// worker can tell that its mounted folder really is this library's and not another's or an empty
// mount point.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const MARKER_NAME = '.backlot-library';
const FORMAT = 'backlot-library-v1';
const ID = /^[0-9a-f]{32}$/;

/** The id in `folder`'s marker, or null (none, unreadable, not a marker). */
export function readLibraryMarker(folder: string): string | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(path.join(folder, MARKER_NAME), 'utf8')) as { format?: unknown; id?: unknown };
    return parsed.format === FORMAT && typeof parsed.id === 'string' && ID.test(parsed.id) ? parsed.id : null;
  } catch {
    return null;
  }
}

/** Writes `folder`'s marker (atomically); false when the folder cannot take it (read-only, missing). */
export function writeLibraryMarker(folder: string, id: string): boolean {
  const target = path.join(folder, MARKER_NAME);
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temporary, `${JSON.stringify({ format: FORMAT, id })}\n`, { mode: 0o644 });
    fs.renameSync(temporary, target);
    return true;
  } catch {
    fs.rmSync(temporary, { force: true });
    return false;
  }
}

/** The library's id: its folder's marker, made on first use. */
export function libraryId(libraryDir: string): string {
  const found = readLibraryMarker(libraryDir);
  if (found) return found;
  const id = crypto.randomBytes(16).toString('hex');
  writeLibraryMarker(libraryDir, id);
  return readLibraryMarker(libraryDir) ?? id;
}

/**
 * Marks each mapped host folder of a shared-media pool with the library's id. A folder that holds
 * another library's marker keeps it (a worker mapping it is then told it is not this library).
 */
export function markMappedFolders(id: string, hostFolders: readonly string[]): { folder: string; marked: boolean; other: boolean }[] {
  return hostFolders.map((folder) => {
    const held = readLibraryMarker(folder);
    if (held === id) return { folder, marked: true, other: false };
    if (held !== null) return { folder, marked: false, other: true };
    return { folder, marked: writeLibraryMarker(folder, id), other: false };
  });
}

/**
 * A host path as the worker sees it through its mappings (segment-wise, the longest host folder
 * first: `/srv/media` covers `/srv/media/x`, never `/srv/media2`; only the leading folder is
 * replaced, so a repeated segment or a non-ASCII name stays as it is). Null when no mapping covers
 * it, or it has a `.`/`..` segment.
 */
export function mapHostPath(maps: readonly { host: string; worker: string }[], hostPath: string): string | null {
  if (!hostPath.startsWith('/') || hostPath.split('/').some((seg) => seg === '.' || seg === '..')) return null;
  const m = [...maps].sort((a, b) => b.host.length - a.host.length).find((x) => hostPath === x.host || hostPath.startsWith(`${x.host.replace(/\/+$/, '')}/`));
  return m ? path.join(m.worker, hostPath.slice(m.host.replace(/\/+$/, '').length)) : null;
}

/** The worker's check of one mapping: null when `workerFolder` holds this library's marker, else the code and sentence. */
export function mappedFolderProblem(library: string | undefined, host: string, workerFolder: string): { code: string; message: string } | null {
  const held = readLibraryMarker(workerFolder);
  if (library !== undefined && held === library) return null;
  const why = library === undefined
    ? 'the join file names no library (it predates library markers; make a new one with "backlot pool token NAME --rotate")'
    : held === null ? `it holds no ${MARKER_NAME} marker (an empty mount point, or not the host's ${host})` : `its ${MARKER_NAME} marker is another library's`;
  return { code: 'MAP_NOT_THIS_LIBRARY', message: `${workerFolder}, mapped from the host's ${host}, is not this library's folder: ${why}.` };
}
