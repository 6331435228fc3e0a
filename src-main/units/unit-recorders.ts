// The settle step's recorders (docs/architecture.md "One writer per column"): what each kind of
// record plan an adapter returned means for the library, written inside the unit's one settle
// transaction. One recorder per kind; adapters hand data, never a function that writes.
import fs from 'node:fs';
import path from 'node:path';
import type { Host } from '../host/host';
import type { RecordPlan } from '../engines/record-plans';
import { BacklotError } from '../../src-shared/errors';
import { indexTranscript } from '../transcripts/search-index';
import { profileNameSource } from '../transcripts/speaker-names';
import { ProfileStore } from '../speakers/profiles/profile-store';
import { commitVoices, speakerMapFor } from '../speakers/host-side';
import type { Acquisition } from '../gates/acquisition';
import { applyListing } from '../library/apply-listing';
import { applyFolderPass } from '../library/folder-scan-pass';
import { logLine, type LogMessage } from '../../src-shared/runs/log-keys';
import { recordUsage } from '../digest/usage';
import { checkpointKey, CheckpointStore } from '../engines/transcribe-kit/checkpoint';
import { checkpointDirOf } from '../engines/transcribe-kit/transcribe-adapter';

/**
 * What a recorder may use: the host's database, the library's folder, the settle's instant, the
 * dispatcher's acquisition state (the unit context's; absent where no dispatcher records, as in a
 * test that records plans of other kinds), and the unit's run log (a line that says what was
 * recorded, written only if the settle commits).
 */
export interface RecordContext {
  host: Host;
  dataDir: string;
  now: number;
  acquisition?: Acquisition;
  log?: (level: 'info' | 'warn', line: LogMessage) => void;
}

/** The acquisition state the download and politeness recorders write; refused with a code without one. */
function acquisitionOf(ctx: RecordContext): Acquisition {
  if (ctx.acquisition) return ctx.acquisition;
  throw new BacklotError('ACQUISITION_NOT_ATTACHED', `No dispatcher runs acquisition for ${ctx.dataDir}.`, { dataDir: ctx.dataDir });
}

type Recorders = { [K in RecordPlan['kind']]: (plan: Extract<RecordPlan, { kind: K }>, ctx: RecordContext) => void };

const RECORDERS: Recorders = {
  transcript: (p, { host, now }) => {
    indexTranscript(host, p.itemId, p.record, { operation: p.operation, path: p.path }, { names: profileNameSource(host), now });
  },
  'speaker-map-unchanged': (p, { host }) => {
    const current = JSON.stringify(speakerMapFor(new ProfileStore(host.db), p.itemId));
    if (current !== p.used) {
      throw new BacklotError('INPUT_CHANGED', 'The speakers of this item changed while their words were being attributed; it is done again with the new ones.', { item: p.itemId });
    }
  },
  'transcribe-checkpoint': (p, { dataDir }) => {
    new CheckpointStore(checkpointDirOf(dataDir), checkpointKey({ itemId: p.itemId, mediaPath: p.mediaPath, engine: p.engine })).clear();
  },
  diarization: (p, { host, now }) => {
    new ProfileStore(host.db, host.work).diarizationReplaced(p.itemId);
    host.work.supersede('attribute-voices', p.itemId, now);
    host.work.supersede('attribute-words', p.itemId, now);
  },
  voices: (p, { host, now }) => {
    commitVoices(new ProfileStore(host.db, host.work), p.itemId, p.voices, now);
  },
  download: (p, ctx) => {
    const { host, now } = ctx;
    // Checked at the commit itself: another download may have committed the same name since the
    // plan. Throwing undoes the rename (the other item's file comes back) and the unit is requeued.
    const holder = host.library.mediaPathHolder(p.mediaPath, p.itemId);
    if (holder !== undefined) {
      throw new BacklotError('INPUT_CHANGED', `Another item's media took the name "${path.basename(p.mediaPath)}" while this one downloaded; it is committed again under its own name.`, { item: p.itemId, holder });
    }
    acquisitionOf(ctx).downloaded(p.politenessKey, p.bytes, p.itemId, now);
    fs.rmSync(p.partialDir, { recursive: true, force: true });
  },
  listing: (p, { host, now }) => {
    applyListing(host, p.channel, p.listing, now);
  },
  'folder-scan': (p, ctx) => {
    const r = applyFolderPass(ctx.host, p, ctx.now);
    ctx.log?.('info', r.unreadable
      ? logLine('scanSummaryUnreadable', { added: r.added, changed: r.changed, removed: r.removed, unchanged: r.unchanged, unreadable: r.unreadable })
      : logLine('scanSummary', { added: r.added, changed: r.changed, removed: r.removed, unchanged: r.unchanged }));
  },
  'politeness-refused': (p, ctx) => {
    acquisitionOf(ctx).refused(p.politenessKey, p.code, p.retryAfterS, ctx.now);
  },
  'download-disk-full': (p, ctx) => {
    fs.rmSync(p.partialDir, { recursive: true, force: true });
    acquisitionOf(ctx).diskFull(p.itemId, p.writtenBytes, ctx.now);
  },
  usage: (p, { host, now }) => {
    recordUsage(host.db, { t: now, ...p.usage });
  },
  'transcript-fallback': (p, { host }) => {
    host.library.setTranscriptFallback(p.itemId, p.fallback);
  },
};

/** Records each plan in order with its kind's recorder; a recorder that refuses throws and the settle rolls back whole. */
export function recordPlans(plans: readonly RecordPlan[], ctx: RecordContext): void {
  for (const plan of plans) (RECORDERS[plan.kind] as (p: RecordPlan, c: RecordContext) => void)(plan, ctx);
}
