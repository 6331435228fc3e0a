// Runs yt-dlp from inside an engine program: no shell, options first and the URL after `--`, the
// allow-listed environment, stdout read line by line, stderr kept (scrubbed of credentials) for the
// error's diagnosis, and the process killed when the job is aborted.
import { spawn } from 'node:child_process';
import { checkFetchUrl, checkResolvedHost } from '../library/net/url-policy';

export interface YtDlpRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** true when onLine asked to stop early (the listing reached a known id). */
  stoppedEarly: boolean;
}

/** Options every yt-dlp call carries: no user config (it could add anything), no update check, plain lines. */
export const BASE_OPTIONS = ['--ignore-config', '--no-update', '--no-colors', '--newline'];

/**
 * The download URL policy (docs/security.md "yt-dlp") before yt-dlp sees a URL: http or https only,
 * and no link-local or metadata address, as written or as resolved. Throws the policy's refusal
 * (URL_ADDRESS_REFUSED, URL_SCHEME_REFUSED, ...), which the engine reports under its own code.
 */
export async function checkYtDlpUrl(url: string): Promise<void> {
  await checkResolvedHost(checkFetchUrl(url));
}

export async function runYtDlp(binary: string, options: readonly string[], url: string, signal: AbortSignal, onLine: (line: string) => boolean | void): Promise<YtDlpRun> {
  await checkYtDlpUrl(url);
  return new Promise((resolve) => {
    const child = spawn(binary, [...BASE_OPTIONS, ...options, '--', url], { stdio: ['ignore', 'pipe', 'pipe'], shell: false, windowsHide: true, env: process.env });
    let stderr = '';
    let buffer = '';
    let stoppedEarly = false;
    const stop = () => { if (child.exitCode === null) child.kill('SIGTERM'); };
    signal.addEventListener('abort', stop, { once: true });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        if (stoppedEarly) continue;
        if (onLine(line) === false) {
          stoppedEarly = true;
          stop();
        }
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (c: string) => { stderr = (stderr + c).slice(-64 * 1024); });
    child.on('error', (e) => { stderr += `\n${String(e)}`; });
    child.on('close', (code, sig) => {
      signal.removeEventListener('abort', stop);
      if (buffer.trim() && !stoppedEarly) onLine(buffer);
      resolve({ code, signal: sig, stderr, stoppedEarly });
    });
  });
}
