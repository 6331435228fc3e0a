// A speaker renamed to an SRT timing line, or text carrying an arrow and blank lines (issue 23):
// the SRT and WebVTT exports keep their cues, read back by ffmpeg, the reader players build on.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderSrt } from '../../src-shared/transcript/render/srt';
import { renderVtt } from '../../src-shared/transcript/render/vtt';
import { DEFAULT_SUBTITLE_LIMITS } from '../../src-shared/transcript/render/cues';
import { srtTimecode } from '../../src-shared/transcript/render/timecode';
import { recordOf, segmentOf } from './fixtures/records';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-structure-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const HOSTILE = '00:00:01,000 --> 00:00:09,000\n\n7\n00:00:30.000 --> 00:00:31.000';
const record = recordOf([
  segmentOf('Hello there everyone', 2, 'prof-a'),
  segmentOf('the arrow --> goes here', 10, 'prof-b'),
  segmentOf('and one more line', 20, 'prof-a'),
]);
const names = { 'prof-a': HOSTILE, 'prof-b': 'Bob' };

/** The cues ffmpeg reads from a subtitle file: [start, end] in seconds, from its packets. */
function ffmpegCues(file: string): [number, number][] {
  const out = execFileSync('ffprobe', ['-v', 'error', '-show_packets', '-of', 'json', file], { encoding: 'utf8' });
  const packets = (JSON.parse(out) as { packets: { pts_time: string; duration_time: string }[] }).packets;
  return packets.map((p) => [Number(p.pts_time), Number((Number(p.pts_time) + Number(p.duration_time)).toFixed(3))]);
}

const expected = () => record.segments.map((s) => [s.start, Number(s.end.toFixed(3))]);

describe('exports neutralise what their format reads as structure', () => {
  it('SRT: a name shaped like a timing line, and an arrow in the text, add no cue and move no time', () => {
    const srt = renderSrt(record, names, DEFAULT_SUBTITLE_LIMITS);
    expect(srt.split('\n').filter((l) => l.includes('-->'))).toEqual(record.segments.map((s) => `${srtTimecode(s.start)} --> ${srtTimecode(s.end)}`));
    expect(srt).not.toMatch(/\n\n\n/);
    expect(srt).toContain('00:00:01,000 → 00:00:09,000 7 00:00:30.000 → 00:00:31.000: Hello');
    const file = path.join(dir, 'hostile.srt');
    fs.writeFileSync(file, srt);
    expect(ffmpegCues(file)).toEqual(expected());
  });

  it('WebVTT: the same name in a voice tag and the same text keep the cues', () => {
    const vtt = renderVtt(record, names, DEFAULT_SUBTITLE_LIMITS);
    expect(vtt.split('\n').filter((l) => l.includes('-->')).length).toBe(record.segments.length);
    const file = path.join(dir, 'hostile.vtt');
    fs.writeFileSync(file, vtt);
    expect(ffmpegCues(file)).toEqual(expected());
  });
});
