// Where `backlot serve` takes its token from. `--token` is visible to every user of the machine in
// `ps`; a file (`--token-file`, readable by its owner only) or the environment (BACKLOT_TOKEN) is not.
import fs from 'node:fs';
import { BacklotError } from '../../../src-shared/errors';
import { readBoundedFile } from '../../system/bounded-read';

const MAX_TOKEN_FILE_BYTES = 4096;

export interface TokenSources {
  flag?: string;
  file?: string;
  env?: string;
}

/** The token to serve with, or undefined to make one up. Exactly one source may be given. */
export function tokenFromSources(sources: TokenSources): string | undefined {
  if (sources.flag !== undefined && sources.file !== undefined) {
    throw new BacklotError('TOKEN_TWICE', 'Give the token one way: --token or --token-file, not both.');
  }
  if (sources.flag !== undefined) return sources.flag;
  if (sources.file !== undefined) return tokenFromFile(sources.file);
  const env = sources.env;
  return env === undefined || env === '' ? undefined : env.trim();
}

function tokenFromFile(file: string): string {
  const text = readBoundedFile(file, MAX_TOKEN_FILE_BYTES, 'the token file');
  // One token on the first line; a trailing newline (echo > file) is not part of it.
  const token = text.split(/\r?\n/)[0].trim();
  if (token === '') throw new BacklotError('TOKEN_FILE_EMPTY', `The token file ${file} is empty; put the token on its first line.`, { path: file });
  return token;
}

/** Whether users other than the owner may read the file (then the token is not a secret). */
export function tokenFileIsShared(file: string): boolean {
  try {
    return process.platform !== 'win32' && (fs.statSync(file).mode & 0o044) !== 0;
  } catch {
    return false;
  }
}
