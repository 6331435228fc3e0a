// The ordered list of migrations; a new one is appended, never edited in place once shipped.
import { sql as library } from './001-library';
import { sql as work } from './002-work';
import { sql as scheduling } from './003-scheduling';
import { sql as outputJobs } from './004-output-jobs';
import { sql as countsInCode } from './005-counts-in-code';
import { sql as workByItem } from './006-work-by-item';
import { sql as fewerReadyIndexes } from './007-fewer-ready-indexes';
import { sql as leanWorkIndexes } from './008-lean-work-indexes';
import { sql as engineFingerprints } from './009-engine-fingerprints';
import { sql as transcriptSearch } from './012-transcript-search';

export interface Migration {
  version: number;
  name: string;
  sql: string;
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
  // Issue 11's number is 12 (docs/transcripts.md); versions stay contiguous, so it is 10 until the
  // migrations numbered 10 and 11 land beside it.
  { version: 10, name: 'transcript-search', sql: transcriptSearch },
];
