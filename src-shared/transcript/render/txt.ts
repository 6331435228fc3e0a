// Plain text: one line per segment, `[HH:MM:SS] Name: text`, the name once speakers are known. What
// a reader greps, quotes or pastes into notes.
import type { SpeakerNames, TranscriptRecord } from '../record';
import { speakerLabels } from '../speakers';
import { clockTimecode } from './timecode';
import { hasSpeech, NO_SPEECH_TEXT } from './empty';

export function renderTxt(record: TranscriptRecord, names: SpeakerNames): string {
  const labels = speakerLabels(record, names);
  if (!hasSpeech(record)) return `${NO_SPEECH_TEXT}\n`;
  return record.segments
    .map((s) => `[${clockTimecode(s.start)}] ${s.speaker === null ? '' : `${labels.get(s.speaker)}: `}${s.text.trim()}\n`)
    .join('');
}
