// A platform item's own subtitles through yt-dlp (docs/transcripts.md "Platform subtitles"): the
// subtitle files only (--skip-download), in the language asked for; the ones a person made first,
// the platform's automatic captions only when the channel allows them. Which file came back, and
// whether it is automatic, is what the record says.
import fs from 'node:fs';
import path from 'node:path';
import { EngineJobError } from '../program-kit';
import { runYtDlp } from '../yt-dlp-process';
import { classifyYtDlpError, scrubCredentials } from '../yt-dlp-errors';
import type { TranscriptOfferType } from '../../../src-shared/transcript/offers';

export interface SubtitleFile { file: string; format: TranscriptOfferType; language: string; automatic: boolean }

/** yt-dlp's --sub-langs for a language setting: "en" takes en, en-US, en-GB...; auto takes any. */
export function subLangs(language: string): string {
  return language === 'auto' ? 'all' : `${language},${language}-.*,${language}_.*`;
}

/** The subtitle formats read, best first; yt-dlp's --sub-format takes the first the platform has. */
const EXTENSIONS: Record<string, TranscriptOfferType> = { vtt: 'text/vtt', srt: 'application/x-subrip' };

function written(dir: string, automatic: boolean): SubtitleFile | null {
  if (!fs.existsSync(dir)) return null;
  const found = fs.readdirSync(dir).map((name) => /^sub\.(.+)\.(vtt|srt)$/.exec(name)).filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Object.keys(EXTENSIONS).indexOf(a[2]) - Object.keys(EXTENSIONS).indexOf(b[2]) || a[1].localeCompare(b[1]));
  const m = found[0];
  return m ? { file: path.join(dir, m[0]), format: EXTENSIONS[m[2]], language: m[1], automatic } : null;
}

/**
 * Fetches the item's subtitles into `dir`: a person's first, then (when allowed) automatic captions.
 * None in the language asked for is SUBTITLES_NONE: the local engine takes the item.
 */
export async function fetchSubtitles(binary: string, url: string, dir: string, language: string, autoCaptions: boolean, signal: AbortSignal,
  log: (text: string) => void): Promise<SubtitleFile> {
  const passes: { automatic: boolean; flag: string }[] = [{ automatic: false, flag: '--write-subs' }];
  if (autoCaptions) passes.push({ automatic: true, flag: '--write-auto-subs' });
  for (const pass of passes) {
    const out = path.join(dir, pass.automatic ? 'automatic' : 'human');
    const run = await runYtDlp(binary, [
      '--skip-download', '--no-playlist', pass.flag, '--sub-langs', subLangs(language), '--sub-format', 'vtt/srt/best',
      '-P', `home:${out}`, '-P', `temp:${out}`, '-o', 'sub',
    ], url, signal, (line) => { if (/Writing video subtitles|There are no/i.test(line)) log(line.trim()); });
    if (signal.aborted) throw new EngineJobError('ENGINE_CANCELLED', 'The subtitle fetch was cancelled.');
    if (run.code !== 0) {
      const failure = classifyYtDlpError(run.stderr);
      throw new EngineJobError(failure?.code === 'DOWNLOAD_UNAVAILABLE' ? 'SUBTITLES_UNAVAILABLE' : failure?.code ?? 'SUBTITLES_FETCH_FAILED',
        'yt-dlp could not fetch the item\'s subtitles.', failure?.params ?? {}, scrubCredentials(run.stderr).slice(-4000));
    }
    const file = written(out, pass.automatic);
    if (file) return file;
  }
  throw new EngineJobError('SUBTITLES_NONE', autoCaptions
    ? `The platform offers neither subtitles nor automatic captions in "${language}" for this item.`
    : `The platform offers no subtitles made by a person in "${language}" for this item (automatic captions are off: transcripts.autoCaptions).`,
  { language, autoCaptions });
}
