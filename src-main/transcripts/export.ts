// One function renders any export format from the record and a names map: the text formats through
// the shared renderers (the window uses the same ones), DOCX through the host's Word writer.
import type { SpeakerNames, TranscriptRecord } from '../../src-shared/transcript/record';
import { FORMAT_INFO, exportFileName, renderTextFormat, type TranscriptFormat } from '../../src-shared/transcript/render/formats';
import type { SubtitleLimits } from '../../src-shared/transcript/render/cues';
import { renderDocx } from './docx';

export interface RenderedTranscript {
  fileName: string;
  mimeType: string;
  /** UTF-8 text, or the bytes of a binary format. */
  data: string | Buffer;
}

export async function renderTranscript(format: TranscriptFormat, record: TranscriptRecord, names: SpeakerNames, options: { title: string; limits: SubtitleLimits }): Promise<RenderedTranscript> {
  const file = { fileName: exportFileName(options.title, format), mimeType: FORMAT_INFO[format].mimeType };
  switch (format) {
    case 'docx':
      return { ...file, data: await renderDocx(record, names, { title: options.title }) };
    case 'json':
    case 'srt':
    case 'vtt':
    case 'txt':
      return { ...file, data: renderTextFormat(format, record, names, options.limits) };
    default: {
      const never: never = format;
      throw new Error(`unknown transcript format ${String(never)}`);
    }
  }
}
