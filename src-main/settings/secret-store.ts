// Where write-only settings (the remote digest's API key) live: never in the database, a log, a run
// record or an answer. In the headless shell and the CLI each secret is a file readable by its owner
// only (mode 0600, in a 0700 folder of the data folder); the Electron shell registers a vault that
// encrypts it with the OS keychain (safeStorage) first (docs/digests.md "The API key").
import fs from 'node:fs';
import path from 'node:path';
import { BacklotError } from '../../src-shared/errors';

/** What the Electron shell implements with `safeStorage` (src-main/shells/electron): encrypt at rest. */
export interface SecretVault {
  /** Names the scheme in the file's header, e.g. "electron-safe-storage". */
  readonly scheme: string;
  /** False where the OS offers no keychain: secrets are then kept as owner-only files. */
  isAvailable(): boolean;
  encrypt(plain: string): Buffer;
  decrypt(data: Buffer): string;
}

let registeredVault: SecretVault | null = null;

/** The Electron shell calls this once at startup; the headless shell and the CLI never do. */
export function registerSecretVault(vault: SecretVault | null): void {
  registeredVault = vault;
}

export const SECRETS_DIR = 'secrets';
const HEADER = 'backlot-secret-v1';

export type SecretRead =
  | { state: 'set'; value: string }
  | { state: 'unset' }
  /** Written by a vault this process cannot open (the desktop app's keychain, read by the CLI). */
  | { state: 'locked'; scheme: string };

export class SecretStore {
  private readonly dir: string;

  constructor(dataDir: string, private readonly vault: SecretVault | null = registeredVault) {
    this.dir = path.join(dataDir, SECRETS_DIR);
  }

  private file(key: string): string {
    if (!/^[A-Za-z0-9._-]{1,128}$/.test(key)) throw new BacklotError('SECRET_KEY_INVALID', 'A secret\'s name may only contain letters, digits, dots, dashes and underscores.');
    return path.join(this.dir, key);
  }

  has(key: string): boolean {
    return fs.existsSync(this.file(key));
  }

  read(key: string): SecretRead {
    let raw: Buffer;
    try {
      raw = fs.readFileSync(this.file(key));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'unset' };
      throw new BacklotError('SECRET_UNREADABLE', `The stored secret "${key}" cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'}).`, { key });
    }
    const nl = raw.indexOf(0x0a);
    const header = nl < 0 ? '' : raw.subarray(0, nl).toString('utf8');
    const body = nl < 0 ? raw : raw.subarray(nl + 1);
    const [magic, scheme] = header.split(' ');
    if (magic !== HEADER) throw new BacklotError('SECRET_UNREADABLE', `The stored secret "${key}" is not in Backlot's format; set it again.`, { key });
    if (scheme === 'plain') return { state: 'set', value: body.toString('utf8') };
    if (this.vault && this.vault.scheme === scheme && this.vault.isAvailable()) {
      return { state: 'set', value: this.vault.decrypt(Buffer.from(body.toString('utf8'), 'base64')) };
    }
    return { state: 'locked', scheme };
  }

  /** Writes atomically, owner-only from its first byte (the temp file is created 0600). */
  write(key: string, value: string): void {
    const target = this.file(key);
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(this.dir, 0o700);
    const useVault = this.vault !== null && this.vault.isAvailable();
    const body = useVault ? Buffer.from(this.vault!.encrypt(value).toString('base64'), 'utf8') : Buffer.from(value, 'utf8');
    const content = Buffer.concat([Buffer.from(`${HEADER} ${useVault ? this.vault!.scheme : 'plain'}\n`, 'utf8'), body]);
    const temp = `${target}.${process.pid}.tmp`;
    fs.rmSync(temp, { force: true });
    const fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_EXCL, 0o600);
    try {
      fs.writeSync(fd, content);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.chmodSync(temp, 0o600);
    fs.renameSync(temp, target);
  }

  remove(key: string): boolean {
    try {
      fs.unlinkSync(this.file(key));
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw e;
    }
  }
}
