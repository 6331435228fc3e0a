// WebVTT (.vtt): the `WEBVTT` header and cues `HH:MM:SS.mmm --> HH:MM:SS.mmm`. Once speakers are
// known each cue opens with a voice tag `<v Name>`, which players show or style as they choose;
// cue text is escaped (&, <, >) as the format requires, and never carries an arrow or line break
// the format would read as structure (./neutral.ts).
import type { SpeakerNames, TranscriptRecord } from '../record';
import { speakerLabels } from '../speakers';
import { buildCues, type SubtitleLimits } from './cues';
import { vttTimecode } from './timecode';
import { NO_SPEECH_TEXT } from './empty';
import { neutralLine } from './neutral';

const escapeText = (text: string) => neutralLine(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A voice annotation ends at `>` and cannot span lines. */
const escapeVoice = (name: string) => escapeText(name);

export function renderVtt(record: TranscriptRecord, names: SpeakerNames, limits: SubtitleLimits): string {
  const labels = speakerLabels(record, names);
  const cues = buildCues(record, limits);
  const body = cues.map((cue) => {
    const text = cue.lines.map(escapeText).join('\n');
    const voiced = cue.speaker === null ? text : `<v ${escapeVoice(labels.get(cue.speaker)!)}>${text}</v>`;
    return `${vttTimecode(cue.start)} --> ${vttTimecode(cue.end)}\n${voiced}\n`;
  });
  // An empty transcript is still a WebVTT file: its header and a NOTE block saying so (docs/transcripts.md).
  if (body.length === 0) return `WEBVTT\n\nNOTE ${NO_SPEECH_TEXT}\n`;
  return ['WEBVTT\n', ...body].join('\n');
}
