// The ordered list of migrations; a new one is appended, never edited in place once shipped.
// Version numbers are assigned per area (docs/speakers.md), so the list may have gaps while
// branches land; migrate() applies each missing version in order.
import { sql as library } from './001-library';
import { sql as work } from './002-work';
import { sql as scheduling } from './003-scheduling';
import { sql as outputJobs } from './004-output-jobs';
import { sql as countsInCode } from './005-counts-in-code';
import { sql as workByItem } from './006-work-by-item';
import { sql as fewerReadyIndexes } from './007-fewer-ready-indexes';
import { sql as leanWorkIndexes } from './008-lean-work-indexes';
import { sql as engineFingerprints } from './009-engine-fingerprints';
import { sql as acquisition } from './010-acquisition';
import { sql as speakers } from './011-speakers';
import { sql as digest } from './012-digest';
import { sql as transcriptSearch } from './013-transcript-search';
import { sql as window } from './014-window';
import { sql as feedNote } from './015-feed-note';
import { sql as pools } from './016-pools';
import { sql as publisherTranscripts } from './017-publisher-transcripts';
import { sql as runLogKeys } from './018-run-log-keys';
import { sql as searchPairs, backfill as backfillSearchPairs } from './019-search-pairs';
import { sql as searchRepeats, backfill as backfillSearchRepeats } from './020-search-repeats';
import type { Db } from '../connection';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Rows the new schema derives from what a library already holds, in the migration's transaction. */
  backfill?: (db: Db) => void;
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'library', sql: library },
  { version: 2, name: 'work', sql: work },
  { version: 3, name: 'scheduling', sql: scheduling },
  { version: 4, name: 'output-jobs', sql: outputJobs },
  { version: 5, name: 'counts-in-code', sql: countsInCode },
  { version: 6, name: 'work-by-item', sql: workByItem },
  { version: 7, name: 'fewer-ready-indexes', sql: fewerReadyIndexes },
  { version: 8, name: 'lean-work-indexes', sql: leanWorkIndexes },
  { version: 9, name: 'engine-fingerprints', sql: engineFingerprints },
  { version: 10, name: 'acquisition', sql: acquisition },
  { version: 11, name: 'speakers', sql: speakers },
  { version: 12, name: 'digest', sql: digest },
  { version: 13, name: 'transcript-search', sql: transcriptSearch },
  // The window's migration (docs/window.md).
  { version: 14, name: 'window', sql: window },
  // The lenient feed reader's note (docs/feeds.md).
  { version: 15, name: 'feed-note', sql: feedNote },
  // The pools (docs/pools.md).
  { version: 16, name: 'pools', sql: pools },
  // The publisher's own transcripts (docs/transcripts.md).
  { version: 17, name: 'publisher-transcripts', sql: publisherTranscripts },
  // Run log lines keyed for the window's languages (docs/i18n.md "Log lines").
  { version: 18, name: 'run-log-keys', sql: runLogKeys },
  // The word-pair index for phrase search (docs/transcripts.md "Pairs").
  { version: 19, name: 'search-pairs', sql: searchPairs, backfill: backfillSearchPairs },
  // The repeats index for ranking words and prefixes by class (docs/transcripts.md "Ranking by class").
  { version: 20, name: 'search-repeats', sql: searchRepeats, backfill: backfillSearchRepeats },
];
