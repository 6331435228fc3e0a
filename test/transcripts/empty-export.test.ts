// An empty transcript exports valid files (issue 21 item 10): ffmpeg reads the SRT and the WebVTT
// (it refuses the 0-byte SRT the exporter used to write), and every format says there is no speech.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { renderTranscript } from '../../src-main/transcripts/export';
import { DEFAULT_SUBTITLE_LIMITS } from '../../src-shared/transcript/render/cues';
import { recordOf, segmentOf } from './fixtures/records';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-empty-export-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const options = { title: 'Silence', limits: DEFAULT_SUBTITLE_LIMITS };

/** ffmpeg reads a subtitle file and writes it back as SRT: exit 0 and the cues it found. */
function ffmpegReads(file: string): { ok: boolean; srt: string; stderr: string } {
  const out = `${file}.out.srt`;
  const r = spawnSync('ffmpeg', ['-nostdin', '-v', 'error', '-i', file, '-f', 'srt', '-y', out], { encoding: 'utf8' });
  return { ok: r.status === 0, srt: r.status === 0 ? fs.readFileSync(out, 'utf8') : '', stderr: r.stderr };
}

describe('exports of a transcript with no words', () => {
  execFileSync('ffmpeg', ['-version']);
  for (const [label, record] of [['no segments', recordOf([], { durationS: 30 })], ['only blank segments', recordOf([segmentOf('   ', 1, null)], { durationS: 30 })]] as const) {
    it(`writes an SRT and a WebVTT that ffmpeg reads, saying there is no speech (${label})`, async () => {
      const srt = await renderTranscript('srt', record, {}, options);
      const vtt = await renderTranscript('vtt', record, {}, options);
      const srtFile = path.join(dir, `${label}.srt`);
      const vttFile = path.join(dir, `${label}.vtt`);
      fs.writeFileSync(srtFile, srt.data);
      fs.writeFileSync(vttFile, vtt.data);
      const readSrt = ffmpegReads(srtFile);
      expect(readSrt.stderr).toBe('');
      expect(readSrt.ok).toBe(true);
      expect(readSrt.srt).toMatch(/00:00:00,000 --> 00:00:30,000\n\[No speech\]/);
      expect(ffmpegReads(vttFile)).toMatchObject({ ok: true, stderr: '' });
      expect(vtt.data).toBe('WEBVTT\n\nNOTE No speech was found in this recording.\n');
    });

    it(`writes a TXT, a JSON and a DOCX that say so (${label})`, async () => {
      expect((await renderTranscript('txt', record, {}, options)).data).toBe('No speech was found in this recording.\n');
      expect(JSON.parse(String((await renderTranscript('json', record, {}, options)).data))).toBeTypeOf('object');
      const docx = await renderTranscript('docx', record, {}, options);
      const xml = await (await JSZip.loadAsync(docx.data as Buffer)).file('word/document.xml')!.async('string');
      expect(xml).toContain('Silence');
      expect(xml).toContain('No speech was found in this recording.');
    });
  }
});
