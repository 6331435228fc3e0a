// An item's transcript as the window's item page and `backlot transcript` need it: the current
// record, its speakers' labels, the export formats, and any export rendered with the subtitle
// settings. One place, so the CLI and the window cannot drift.
import type { Host } from '../host/host';
import type { Arbiter } from '../arbiter/arbiter';
import type { TranscriptViewDto } from '../../src-shared/api/contract';
import type { SettingsValues } from '../../src-shared/settings/settings-schema';
import { speakersOf } from '../../src-shared/transcript/speakers';
import { FORMAT_INFO, TRANSCRIPT_FORMATS, exportFileName, subtitleLimitsOf, type TranscriptFormat } from '../../src-shared/transcript/render/formats';
import { requireTranscript } from '../explain/transcript-refusal';
import { speakerNamesFor, type SpeakerNameSource } from '../transcripts/speaker-names';
import { renderTranscript, type RenderedTranscript } from '../transcripts/export';

export function transcriptViewOf(host: Host, arbiter: Arbiter, itemId: string, names?: SpeakerNameSource): TranscriptViewDto {
  const current = requireTranscript(host, arbiter, itemId);
  const item = host.library.item(itemId)!;
  return {
    item: itemId, title: item.title, channel: item.channel_id, operation: current.operation,
    transcript: current.record,
    speakers: speakerNamesFor(host, speakersOf(current.record), names),
    exports: TRANSCRIPT_FORMATS.map((format) => ({ format, fileName: exportFileName(item.title, format), mimeType: FORMAT_INFO[format].mimeType })),
  };
}

export async function exportItemTranscript(host: Host, arbiter: Arbiter, settings: SettingsValues, itemId: string, format: TranscriptFormat, names?: SpeakerNameSource): Promise<RenderedTranscript> {
  const current = requireTranscript(host, arbiter, itemId);
  const title = host.library.item(itemId)!.title;
  return renderTranscript(format, current.record, speakerNamesFor(host, speakersOf(current.record), names), { title, limits: subtitleLimitsOf(settings) });
}
