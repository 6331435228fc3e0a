// Runs yt-dlp from inside an engine program: no shell, options first and the URL after `--`, the
// allow-listed environment, stdout read line by line, stderr kept (scrubbed of credentials) for the
// error's diagnosis, and the process killed when the job is aborted.
import { spawn } from 'node:child_process';
import dns from 'node:dns/promises';
import net from 'node:net';
import { checkFetchUrl, checkResolvedHost, isLoopbackAddress, redactUrl } from '../library/net/url-policy';
import { BacklotError } from '../../src-shared/errors';
import { startPolicyProxy } from './policy-proxy';

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
export async function checkYtDlpUrl(url: string): Promise<URL> {
  const checked = checkFetchUrl(url);
  await checkResolvedHost(checked);
  return checked;
}

/** Whether the URL is on this machine: only then may yt-dlp's connections stay on it (url-policy.ts). */
export async function onThisMachine(url: URL): Promise<boolean> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = net.isIP(host) ? [host] : (await dns.lookup(host, { all: true, verbatim: true }).catch(() => [])).map((a) => a.address);
  return addresses.length > 0 && addresses.every(isLoopbackAddress);
}

export async function runYtDlp(binary: string, options: readonly string[], url: string, signal: AbortSignal, onLine: (line: string) => boolean | void): Promise<YtDlpRun> {
  const checked = await checkYtDlpUrl(url);
  // yt-dlp resolves names again and follows redirects itself: every connection it makes goes
  // through the policy proxy, which checks the address it actually connects to.
  const proxy = await startPolicyProxy(await onThisMachine(checked));
  const run = await spawnYtDlp(binary, [...BASE_OPTIONS, ...options, '--proxy', proxy.url, '--', url], signal, onLine);
  await proxy.close();
  if (proxy.refused.length > 0 && run.code !== 0) {
    throw new BacklotError('URL_ADDRESS_REFUSED', `yt-dlp, fetching ${redactUrl(checked)}, was refused a connection to ${proxy.refused[0]} by the URL policy.`, { url: redactUrl(checked), refused: proxy.refused.slice(0, 5) });
  }
  return run;
}

function spawnYtDlp(binary: string, args: readonly string[], signal: AbortSignal, onLine: (line: string) => boolean | void): Promise<YtDlpRun> {
  return new Promise((resolve) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], shell: false, windowsHide: true, env: process.env });
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
