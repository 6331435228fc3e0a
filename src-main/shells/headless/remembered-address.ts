// The headless shell's port and token, kept in the data folder so a restart comes back on the same
// address and an open tab reconnects by itself (docs/window.md "Restarting the headless shell").
import fs from 'node:fs';
import path from 'node:path';

export const ADDRESS_FILE = 'serve-address.json';
const MAX_BYTES = 4096;

export interface RememberedAddress {
  port?: number;
  token?: string;
}

/** What the last start kept, or nothing when the file is missing or not ours (then a fresh address). */
export function readRememberedAddress(dataDir: string): RememberedAddress {
  const file = path.join(dataDir, ADDRESS_FILE);
  let text: string;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile() || stat.size > MAX_BYTES) return {};
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof value !== 'object' || value === null) return {};
  const { port, token } = value as { port?: unknown; token?: unknown };
  return {
    port: typeof port === 'number' && Number.isInteger(port) && port > 0 && port <= 65535 ? port : undefined,
    token: typeof token === 'string' && token.length >= 8 && !/\s/.test(token) ? token : undefined,
  };
}

/**
 * Keeps the address for the next start, readable by its owner only (the token is a credential).
 * Written beside and renamed, so a crash mid-write never leaves half a file.
 */
export function rememberAddress(dataDir: string, address: RememberedAddress): void {
  const file = path.join(dataDir, ADDRESS_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(address)}\n`, { mode: 0o600 });
  fs.chmodSync(temp, 0o600);
  fs.renameSync(temp, file);
}
