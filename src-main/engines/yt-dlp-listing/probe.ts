// The platform lister `library add` uses (library/probe-source.ts): yt-dlp's flat listing of the URL,
// once, answering the title and the number of entries; a single video or a page yt-dlp cannot list
// is refused with the reason, never stored.
import { execFile } from 'node:child_process';
import type { PlatformLister } from '../../library/probe-source';
import type { EngineEnvironment } from '../adapter';
import { findYtDlp } from '../yt-dlp-binary';
import { BASE_OPTIONS, checkYtDlpUrl, onThisMachine } from '../yt-dlp-process';
import { startPolicyProxy } from '../policy-proxy';
import { classifyYtDlpError, scrubCredentials } from '../yt-dlp-errors';
import { engineEnvironment } from '../program-command';
import { BacklotError } from '../../../src-shared/errors';
import { redactUrl } from '../../library/net/url-policy';

export function ytDlpLister(env: Pick<EngineEnvironment, 'resourcesDir' | 'settings'>): PlatformLister {
  return async (url) => {
    const bin = await findYtDlp(env);
    if (!bin) throw new BacklotError('YTDLP_NOT_FOUND', 'yt-dlp was not found, so a platform URL cannot be checked; run scripts/install-engines.sh.');
    // The same policy as the engines' yt-dlp runs (docs/security.md "yt-dlp"): the URL checked
    // first, then every connection through the policy proxy.
    const proxy = await startPolicyProxy(await onThisMachine(await checkYtDlpUrl(url)));
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(bin.path, [...BASE_OPTIONS, '--proxy', proxy.url, '--flat-playlist', '--dump-single-json', '--', url], { timeout: 120_000, maxBuffer: 256 * 1024 * 1024, env: engineEnvironment(), windowsHide: true },
        (err, out, errText) => resolve({ code: err ? Number((err as { code?: unknown }).code) || 1 : 0, stdout: String(out), stderr: String(errText) }));
    });
    await proxy.close();
    const shown = redactUrl(url);
    if (code !== 0 && proxy.refused.length > 0) {
      throw new BacklotError('URL_ADDRESS_REFUSED', `yt-dlp, listing ${shown}, was refused a connection to ${proxy.refused[0]} by the URL policy.`, { url: shown, refused: proxy.refused.slice(0, 5) });
    }
    if (code !== 0) {
      const failure = classifyYtDlpError(stderr);
      if (failure?.code === 'DOWNLOAD_UNREACHABLE') throw new BacklotError('SOURCE_UNREACHABLE', `${shown} could not be reached.`, { url: shown, diagnostic: scrubCredentials(stderr.slice(-500)) });
      throw new BacklotError('SOURCE_UNRECOGNISED', `${shown} is neither a feed nor a channel or playlist yt-dlp can list${failure ? ` (${failure.code})` : ''}.`, { url: shown, code: failure?.code ?? 'YTDLP_FAILED' });
    }
    let info: { _type?: unknown; title?: unknown; entries?: unknown; playlist_count?: unknown };
    try {
      info = JSON.parse(stdout) as typeof info;
    } catch {
      throw new BacklotError('SOURCE_UNRECOGNISED', `yt-dlp answered something unreadable for ${shown}.`, { url: shown });
    }
    if (info._type !== 'playlist') throw new BacklotError('SOURCE_UNRECOGNISED', `${shown} is a single video or page, not a channel or playlist.`, { url: shown });
    const entries = Array.isArray(info.entries) ? info.entries.length : typeof info.playlist_count === 'number' ? info.playlist_count : 0;
    return { title: typeof info.title === 'string' ? info.title : null, entries };
  };
}
