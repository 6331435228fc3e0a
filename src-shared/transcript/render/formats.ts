// The export formats of a transcript, their files, and the renderers of the text ones. DOCX needs a
// zip writer, so the host renders it (src-main/transcripts/docx.ts); the window renders the others
// itself from the record it already holds.
import type { SpeakerNames, TranscriptRecord } from '../record';
import type { SettingsValues } from '../../settings/settings-schema';
import type { SubtitleLimits } from './cues';
import { renderJson } from './json';
import { renderSrt } from './srt';
import { renderTxt } from './txt';
import { renderVtt } from './vtt';

export const TRANSCRIPT_FORMATS = ['json', 'srt', 'vtt', 'txt', 'docx'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];
export type TextTranscriptFormat = Exclude<TranscriptFormat, 'docx'>;

export interface FormatInfo {
  extension: string;
  mimeType: string;
  /** Bytes rather than UTF-8 text. */
  binary: boolean;
}

export const FORMAT_INFO: Record<TranscriptFormat, FormatInfo> = {
  json: { extension: 'json', mimeType: 'application/json', binary: false },
  srt: { extension: 'srt', mimeType: 'application/x-subrip', binary: false },
  vtt: { extension: 'vtt', mimeType: 'text/vtt', binary: false },
  txt: { extension: 'txt', mimeType: 'text/plain', binary: false },
  docx: { extension: 'docx', mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', binary: true },
};

export function isTranscriptFormat(value: unknown): value is TranscriptFormat {
  return typeof value === 'string' && (TRANSCRIPT_FORMATS as readonly string[]).includes(value);
}

export function renderTextFormat(format: TextTranscriptFormat, record: TranscriptRecord, names: SpeakerNames, limits: SubtitleLimits): string {
  switch (format) {
    case 'json': return renderJson(record, names);
    case 'srt': return renderSrt(record, names, limits);
    case 'vtt': return renderVtt(record, names, limits);
    case 'txt': return renderTxt(record, names);
    default: {
      const never: never = format;
      throw new Error(`unknown transcript format ${String(never)}`);
    }
  }
}

/** A file name for an export: the item's title made safe for every file system, and the extension. */
export function exportFileName(title: string, format: TranscriptFormat): string {
  // eslint-disable-next-line no-control-regex
  const base = title.replace(/[\u0000-\u001f<>:"/\\|?*]+/g, ' ').replace(/\s+/g, ' ').trim().replace(/^\.+/, '').slice(0, 120).trim();
  return `${base === '' ? 'transcript' : base}.${FORMAT_INFO[format].extension}`;
}

/** The subtitle limits the settings hold (`subtitles.*`). */
export function subtitleLimitsOf(values: Pick<SettingsValues, 'subtitles.maxLineChars' | 'subtitles.maxLines' | 'subtitles.maxCueS'>): SubtitleLimits {
  return { maxLineChars: values['subtitles.maxLineChars'], maxLines: values['subtitles.maxLines'], maxCueS: values['subtitles.maxCueS'] };
}
