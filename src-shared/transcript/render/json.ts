// The JSON export: the canonical record as it is (speakers stay profile ids) plus `speakers`, the
// label of each id at the time of export, so the file reads on its own.
import { z } from 'zod';
import { transcriptRecord, type SpeakerNames, type TranscriptRecord } from '../record';
import { speakerLabels } from '../speakers';

export const transcriptExport = transcriptRecord.extend({ speakers: z.record(z.string(), z.string()) }).strict();
export type TranscriptExport = z.infer<typeof transcriptExport>;

export function renderJson(record: TranscriptRecord, names: SpeakerNames): string {
  const exported: TranscriptExport = { ...record, speakers: Object.fromEntries(speakerLabels(record, names)) };
  return `${JSON.stringify(exported, null, 2)}\n`;
}
