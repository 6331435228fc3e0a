// One gate on the library volume's free space, shared by every path that writes media bytes.
// open: all starts; draining: no new byte-writing work, running work finishes; shut: byte writers
// hold and the user is told. Sidecars (transcripts, digests) are never gated: holding kilobytes
// frees nothing and costs days.
export type DiskMode = 'open' | 'draining' | 'shut';

export interface DiskThresholds {
  drainingBelowBytes: number;
  shutBelowBytes: number;
}


/** Free space of the library volume in bytes, or null when it cannot be read (no constraint). */
export interface DiskProbe {
  freeBytes(): number | null;
  /**
   * After an ENOSPC the gate reads as shut for downloads of unknown size; this is the free space a
   * download whose source announced its size may still use (null: no such shortfall now).
   */
  announcedRoom?(): number | null;
}

export function diskMode(freeBytes: number | null, reservedBytes: number, t: DiskThresholds): DiskMode {
  if (freeBytes === null) return 'open';
  const free = freeBytes - reservedBytes;
  if (free < t.shutBelowBytes) return 'shut';
  if (free < t.drainingBelowBytes) return 'draining';
  return 'open';
}
