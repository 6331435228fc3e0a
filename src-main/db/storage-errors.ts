// What a failed write means for the user (docs/reliability.md "Disk full"): a full disk
// (SQLITE_FULL, ENOSPC, a quota) is DISK_FULL, a broken device or a read-only volume IO_ERROR; the
// host holds its writers on the first and reports the second, and neither is ever INTERNAL.
import { isBacklotError } from '../../src-shared/errors';

export type StorageErrorCode = 'DISK_FULL' | 'IO_ERROR';

const FULL_ERRNO = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);
const IO_ERRNO = new Set(['EIO', 'EROFS', 'SQLITE_IOERR', 'SQLITE_READONLY', 'SQLITE_CANTOPEN']);

/** DISK_FULL or IO_ERROR when `e` is a storage failure, else null. */
export function storageErrorCode(e: unknown): StorageErrorCode | null {
  if (isBacklotError(e)) {
    if (e.code === 'DISK_FULL' || e.code === 'IO_ERROR') return e.code;
    const reason = e.params.reason ?? e.params.errno;
    if (typeof reason === 'string') return classify(reason);
    return classify(codeOf((e as { cause?: unknown }).cause));
  }
  return classify(codeOf(e));
}

function codeOf(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function classify(code: string | undefined): StorageErrorCode | null {
  if (code === undefined) return null;
  if (FULL_ERRNO.has(code)) return 'DISK_FULL';
  // SQLite's extended codes: SQLITE_IOERR_WRITE, SQLITE_IOERR_FSYNC, SQLITE_READONLY_DBMOVED...
  if (IO_ERRNO.has(code) || [...IO_ERRNO].some((c) => c.startsWith('SQLITE_') && code.startsWith(`${c}_`))) return 'IO_ERROR';
  return null;
}
