// Which committed transcript is an item's transcript, and reading it. Two operations write one:
// transcribe (speakers null) and attribute-words (the same words, speakers set). The one committed
// last is current, the one the search index holds; without an index entry, the work rows decide
// (docs/transcripts.md "Which transcript").
import fs from 'node:fs';
import type { Host } from '../host/host';
import { BacklotError } from '../../src-shared/errors';
import { transcriptRecord, type TranscriptRecord } from '../../src-shared/transcript/record';
import type { TranscriptOperation, TranscriptSource } from './search-index';

export interface CurrentTranscript {
  itemId: string;
  operation: TranscriptOperation;
  path: string;
  record: TranscriptRecord;
}

interface WorkOutput { state: string; output_path: string | null }

/** The sidecar an item's transcript is read from, or null when no transcript was committed. */
export function currentTranscriptSource(host: Host, itemId: string): (TranscriptSource & { path: string }) | null {
  const work = (op: TranscriptOperation) => host.db.prepare('SELECT state, output_path FROM work WHERE operation = ? AND item_id = ?').get(op, itemId) as WorkOutput | undefined;
  const words = work('attribute-words');
  const plain = work('transcribe');
  const indexed = host.db.prepare('SELECT operation, output_path FROM search_items WHERE item_id = ?').get(itemId) as { operation: TranscriptOperation; output_path: string | null } | undefined;
  // The index names the last commit, as long as that output is still the one its work row records.
  if (indexed?.output_path && [words?.output_path, plain?.output_path].includes(indexed.output_path)) {
    return { operation: indexed.operation, path: indexed.output_path };
  }
  if (words?.output_path && words.state === 'done') return { operation: 'attribute-words', path: words.output_path };
  if (plain?.output_path) return { operation: 'transcribe', path: plain.output_path };
  if (words?.output_path) return { operation: 'attribute-words', path: words.output_path };
  return null;
}

/** Reads and validates a transcript sidecar; a missing, unreadable or malformed file is refused by name. */
export function readTranscriptFile(file: string, itemId: string): TranscriptRecord {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new BacklotError('TRANSCRIPT_UNREADABLE', `The transcript of item "${itemId}" cannot be read from ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'}).`, { item: itemId, file });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BacklotError('TRANSCRIPT_INVALID', `The transcript of item "${itemId}" at ${file} is not JSON.`, { item: itemId, file });
  }
  const parsed = transcriptRecord.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BacklotError('TRANSCRIPT_INVALID', `The transcript of item "${itemId}" at ${file} is not a valid transcript record at "${issue.path.join('.') || '(root)'}": ${issue.message}.`, { item: itemId, file });
  }
  return parsed.data;
}

/** The item's current transcript, or null when none was committed. */
export function currentTranscript(host: Host, itemId: string): CurrentTranscript | null {
  const source = currentTranscriptSource(host, itemId);
  if (!source) return null;
  return { itemId, operation: source.operation, path: source.path, record: readTranscriptFile(source.path, itemId) };
}
