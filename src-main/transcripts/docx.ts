// The Word export: a title, a line on where the transcript came from, then one paragraph per
// segment with its time and speaker, written by the `docx` library (docs/decisions.md) so the file
// is a real Office Open XML package every word processor opens.
import { Document, HeadingLevel, Packer, Paragraph, TextRun } from 'docx';
import type { SpeakerNames, TranscriptRecord } from '../../src-shared/transcript/record';
import { speakerLabels } from '../../src-shared/transcript/speakers';
import { clockTimecode } from '../../src-shared/transcript/render/timecode';
import { NO_SPEECH_TEXT } from '../../src-shared/transcript/render/empty';

export interface DocxMeta {
  title: string;
}

/** Characters XML 1.0 cannot carry at all; a transcript is text, so they are dropped. */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const clean = (text: string) => text.replace(NOT_XML, '');

/** The recording's length as a person says it: "21 s", "2 min 5 s", "1 h 3 min" (a 21 s file is not "0 min"). */
export function lengthOf(durationS: number): string {
  const total = Math.max(0, Math.round(durationS));
  if (total < 60) return `${total} s`;
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  return s > 0 ? `${m} min ${s} s` : `${m} min`;
}

export async function renderDocx(record: TranscriptRecord, names: SpeakerNames, meta: DocxMeta): Promise<Buffer> {
  const labels = speakerLabels(record, names);
  const about = `${record.engine} (${record.model}), language ${record.language}, ${lengthOf(record.durationS)}`;
  const paragraphs = record.segments.filter((s) => s.text.trim() !== '').map((s) => new Paragraph({
    spacing: { after: 120 },
    children: [
      new TextRun({ text: `[${clockTimecode(s.start)}] `, color: '666666' }),
      ...(s.speaker === null ? [] : [new TextRun({ text: `${clean(labels.get(s.speaker)!)}: `, bold: true })]),
      new TextRun({ text: clean(s.text.trim()) }),
    ],
  }));
  const doc = new Document({
    creator: 'Backlot',
    title: clean(meta.title),
    sections: [{
      children: [
        new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun({ text: clean(meta.title) })] }),
        new Paragraph({ spacing: { after: 240 }, children: [new TextRun({ text: clean(about), italics: true, color: '666666' })] }),
        ...paragraphs,
        // A transcript with no words still says so, never a document with nothing after its heading.
        ...(paragraphs.length === 0 ? [new Paragraph({ children: [new TextRun({ text: NO_SPEECH_TEXT, italics: true })] })] : []),
      ],
    }],
  });
  return Packer.toBuffer(doc);
}
