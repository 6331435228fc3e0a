// What yt-dlp's error lines mean for the host (issue 10 "Politeness"): a refusal of the platform
// (429, a bot check) becomes NETWORK_REFUSED, which opens the platform's cooldown; live and upcoming
// videos are excluded; a full disk is DISK_FULL; the rest keep yt-dlp's own words as diagnosis only.
export interface YtDlpFailure {
  code: string;
  params: Record<string, unknown>;
}

const RULES: { test: RegExp; code: string; params?: (m: RegExpExecArray) => Record<string, unknown> }[] = [
  { test: /HTTP Error (429)|Too Many Requests/i, code: 'NETWORK_REFUSED', params: () => ({ status: 429 }) },
  { test: /Sign in to confirm (you.re|you are) not a bot|confirm you.re not a robot|unusual traffic/i, code: 'NETWORK_REFUSED', params: () => ({ reason: 'bot-check' }) },
  { test: /No space left on device|\[Errno 28\]/i, code: 'DISK_FULL', params: () => ({}) },
  { test: /live event will begin|Premieres in|This live stream recording is not available|is_upcoming|upcoming/i, code: 'UPCOMING' },
  { test: /is live now|currently live|live stream|is_live/i, code: 'LIVE_NOW' },
  { test: /Private video|Video unavailable|This video is not available|has been removed|HTTP Error (404|410)/i, code: 'DOWNLOAD_UNAVAILABLE' },
  { test: /Unsupported URL/i, code: 'SOURCE_UNSUPPORTED' },
  { test: /Unable to download webpage|Failed to resolve|Connection refused|timed out|Name or service not known|getaddrinfo/i, code: 'DOWNLOAD_UNREACHABLE' },
  { test: /HTTP Error (\d{3})/i, code: 'DOWNLOAD_HTTP_STATUS', params: (m) => ({ status: Number(m[1]) }) },
];

/** Classifies yt-dlp's stderr by its ERROR lines (the last one decides); null when none matched. */
export function classifyYtDlpError(stderr: string): YtDlpFailure | null {
  const errors = stderr.split('\n').filter((l) => /^ERROR:/.test(l.trim()));
  for (const line of [...errors].reverse()) {
    for (const rule of RULES) {
      const m = rule.test.exec(line);
      if (m) return { code: rule.code, params: rule.params?.(m) ?? {} };
    }
  }
  return null;
}

/** Removes credentials from anything yt-dlp echoes back (it prints URLs as it was given them). */
export function scrubCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1***@');
}
