// What an adapter's commit (or failure) asks the settle step to record, as data: the host
// interprets each kind with its one recorder (units/unit-recorders.ts) inside the unit's settle
// transaction, so no adapter writes the database itself (docs/architecture.md "One writer per column").
import type { TranscriptRecord } from '../../src-shared/transcript/record';
import type { TranscriptOperation } from '../transcripts/search-index';
import type { VoicesRecord } from '../speakers/jobs/voices-job';
import type { ChannelRecord } from '../library/repository';
import type { Listing } from '../library/listing';
import type { UsageRow } from '../digest/usage';
import type { PassFinding } from '../library/folder-scan-pass';

export type RecordPlan =
  /** A transcript output's search rows, with the profiles' names (docs/transcripts.md "Writers"). */
  | { kind: 'transcript'; itemId: string; operation: TranscriptOperation; path: string; record: TranscriptRecord }
  /**
   * A word attribution's input: the item's cluster-to-profile map it was built with (JSON). If the
   * map moved since, the settle refuses with INPUT_CHANGED and the unit is requeued.
   */
  | { kind: 'speaker-map-unchanged'; itemId: string; used: string }
  /** A transcription's chunk checkpoint, removed once its transcript is recorded. */
  | { kind: 'transcribe-checkpoint'; itemId: string; mediaPath: string; engine: string }
  /** A new diarization: the old clusters' assignments dropped and what was built on them done again. */
  | { kind: 'diarization'; itemId: string }
  /** A voice attribution's cluster-to-profile matches, into the profile tables. */
  | { kind: 'voices'; itemId: string; voices: VoicesRecord }
  /**
   * A finished download: the media name checked to be still this item's own (else INPUT_CHANGED),
   * counted for the platform's daily cap, its partial download removed. The item's media columns
   * are the download recorder's (`CommitPlan.media`), not this one's.
   */
  | { kind: 'download'; itemId: string; mediaPath: string; politenessKey: string; bytes: number; partialDir: string }
  /** A sync's listing applied to the library (new items added, known ones updated). */
  | { kind: 'listing'; channel: ChannelRecord; listing: Listing }
  /**
   * A folder channel's whole scan pass (engines/folder-scan): each examined file written as an item,
   * the items not seen marked gone, the pass recorded finished; INPUT_CHANGED when the folder's
   * settings moved since the pass was examined under `settingsFingerprint`.
   */
  | { kind: 'folder-scan'; channelId: string; settingsFingerprint: string; findings: PassFinding[]; unchanged: number }
  /** A platform or host refused: its cooldown opened or lengthened (docs/acquisition.md). */
  | { kind: 'politeness-refused'; politenessKey: string; code: string; retryAfterS: number | null }
  /** A download met a full disk: its partial removed and what it had written remembered. */
  | { kind: 'download-disk-full'; itemId: string; writtenBytes: number; partialDir: string }
  /** What a remote engine's requests took and cost, in the usage ledger (docs/digests.md "Money"). */
  | { kind: 'usage'; usage: Omit<UsageRow, 't'> }
  /** The source's transcript could not be had: remembered on the item (docs/transcripts.md). */
  | { kind: 'transcript-fallback'; itemId: string; fallback: string };

export type RecordPlanKind = RecordPlan['kind'];
