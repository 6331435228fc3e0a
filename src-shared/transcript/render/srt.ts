// SubRip (.srt): numbered cues, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, a blank line between cues. SRT has
// no voice tags, so a known speaker's name leads the cue's first line ("Name: ...") and counts
// toward its length. Names and text never carry what SRT reads as structure (./neutral.ts).
import type { SpeakerNames, TranscriptRecord } from '../record';
import { speakerLabels } from '../speakers';
import { buildCues, type SubtitleLimits } from './cues';
import { srtTimecode } from './timecode';
import { NO_SPEECH_CUE } from './empty';
import { neutralLine } from './neutral';

export function renderSrt(record: TranscriptRecord, names: SpeakerNames, limits: SubtitleLimits): string {
  const labels = speakerLabels(record, names);
  const prefix = (speaker: string | null) => (speaker === null ? '' : `${neutralLine(labels.get(speaker)!)}: `);
  const cues = buildCues(record, limits, { firstLineReserve: (s) => prefix(s).length });
  // SRT has no comments and a file with no cue is refused by players and ffmpeg: an empty transcript
  // is one cue over the recording that says so (docs/transcripts.md "Empty transcripts").
  if (cues.length === 0) return `1\n${srtTimecode(0)} --> ${srtTimecode(Math.max(1, record.durationS))}\n${NO_SPEECH_CUE}\n`;
  return cues.map((cue, i) => {
    // Names and words pass neutralLine: a line SRT would read as a timing line or a cue's end never appears.
    const lines = cue.lines.map(neutralLine);
    lines[0] = prefix(cue.speaker) + lines[0];
    return `${i + 1}\n${srtTimecode(cue.start)} --> ${srtTimecode(cue.end)}\n${lines.join('\n')}\n`;
  }).join('\n');
}
