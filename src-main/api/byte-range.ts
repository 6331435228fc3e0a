// One HTTP Range header against a file's size (RFC 9110 §14): the part to send, the whole file, or
// "not satisfiable". Both shells' media doors answer through this, so seeking behaves the same in
// a browser and in the desktop app.
export type RangeAnswer =
  | { kind: 'full' }
  | { kind: 'partial'; start: number; end: number }
  | { kind: 'unsatisfiable' };

/**
 * Only single byte ranges are served (what media elements send); several ranges, another unit or a
 * malformed header get the whole file, as the RFC allows a server to ignore a Range it does not support.
 */
export function byteRange(header: string | null | undefined, size: number): RangeAnswer {
  if (!header) return { kind: 'full' };
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return { kind: 'full' };
  if (m[1] === '') {
    // A suffix: the last N bytes.
    const n = Number(m[2]);
    if (n === 0) return { kind: 'unsatisfiable' };
    return size === 0 ? { kind: 'unsatisfiable' } : { kind: 'partial', start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size) return { kind: 'unsatisfiable' };
  if (m[2] !== '' && Number(m[2]) < start) return { kind: 'full' };
  return { kind: 'partial', start, end };
}
