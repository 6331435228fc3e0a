// Writing a file a user asked for (`--out FILE`) so that it is either the old file or the whole new
// one: written beside it, flushed to disk, then renamed over it. A failure leaves nothing half-written.
import fs from 'node:fs';
import path from 'node:path';
import { BacklotError } from '../../src-shared/errors';

export function writeFileAtomically(file: string, data: string | Buffer): void {
  const target = path.resolve(file);
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.backlot-${process.pid}.tmp`);
  try {
    const fd = fs.openSync(temporary, 'w');
    try {
      fs.writeFileSync(fd, data);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, target);
  } catch (e) {
    fs.rmSync(temporary, { force: true });
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    throw new BacklotError(code === 'ENOSPC' ? 'DISK_FULL' : 'OUTPUT_UNWRITABLE', `Cannot write ${target}: ${code}.`, { file: target, errno: code });
  }
}
