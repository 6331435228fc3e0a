// A file in a watched folder that is named like media but cannot be read (empty, text named .mp3,
// no readable packet) is an item held with its reason, never dropped in silence; a later scan that
// finds it changed and readable lets the hold go (docs/acquisition.md "Folders").
import { OPERATIONS, type OperationId } from '../../src-shared/catalog/operations';
import { UNREADABLE_MEDIA_CODES as UNREADABLE_CODES, type UnreadableMediaCode as UnreadableCode } from '../../src-shared/reasons/codes';
import type { LibraryHost } from './library-host';

export type { UnreadableCode };

/** The item operations that read the media file itself; the rest wait on them (blocked). */
const READS_MEDIA: readonly OperationId[] = OPERATIONS
  .filter((op) => op.scope === 'item' && op.dependsOn.includes('download'))
  .map((op) => op.id);

function isUnreadableCode(code: string | null): boolean {
  return code !== null && (UNREADABLE_CODES as readonly string[]).includes(code);
}

/** Holds (code) or releases (null) the item's media-reading work; a hold of another kind is left alone. */
export function holdUnreadable(host: LibraryHost, itemId: string, code: UnreadableCode | null, now: number): void {
  for (const op of READS_MEDIA) {
    const row = host.work.row(op, itemId);
    if (!row) continue;
    if (code !== null) {
      if (row.deferral_kind !== 'excluded' || row.deferral_code !== code) {
        host.work.recordDeferral(op, itemId, { attempts: row.attempts, kind: 'excluded', until: null, code }, now);
      }
    } else if (row.deferral_kind === 'excluded' && isUnreadableCode(row.deferral_code)) {
      host.work.recordDeferral(op, itemId, { attempts: 0, kind: null, until: null, code: null }, now);
    }
  }
}

/** Items of the channel held as unreadable now (an item whose file is gone is not counted). */
export function countUnreadable(host: LibraryHost, channelId: string): number {
  const marks = READS_MEDIA.map(() => '?').join(', ');
  const codes = UNREADABLE_CODES.map(() => '?').join(', ');
  const row = host.db.prepare(`SELECT count(DISTINCT item_id) AS n FROM work
    WHERE channel_id = ? AND operation IN (${marks}) AND state = 'deferred' AND deferral_kind = 'excluded' AND deferral_code IN (${codes})`)
    .get(channelId, ...READS_MEDIA, ...UNREADABLE_CODES) as { n: number };
  return row.n;
}
