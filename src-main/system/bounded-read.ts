// Reads a small file the user names (a policy tree, a token) without trusting what it is: fstat on
// the open descriptor first, so a FIFO, a device such as /dev/zero, a folder or a huge file is
// refused before a byte is read, and the read itself never takes more than the limit.
import fs from 'node:fs';
import { BacklotError } from '../../src-shared/errors';
import { ioError } from './io-error';

// Non-blocking open: opening a FIFO for reading would otherwise wait for a writer forever.
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

export function readBoundedFile(file: string, maxBytes: number, what: string): string {
  let fd: number;
  try {
    fd = fs.openSync(file, OPEN_FLAGS);
  } catch (e) {
    throw ioError(e, `read ${what}`, file);
  }
  try {
    let stat: fs.Stats;
    try {
      stat = fs.fstatSync(fd);
    } catch (e) {
      throw ioError(e, `read ${what}`, file);
    }
    if (!stat.isFile()) {
      throw new BacklotError('NOT_A_FILE', `${capitalize(what)} ${file} is not a regular file (${kindOf(stat)}); give the path of a file.`, { path: file, kind: kindOf(stat) });
    }
    if (stat.size > maxBytes) {
      throw new BacklotError('FILE_TOO_LARGE', `${capitalize(what)} ${file} is ${stat.size} bytes; at most ${maxBytes} are read.`, { path: file, bytes: stat.size, limit: maxBytes });
    }
    // One byte more than the limit: a file that grew after the fstat is refused, not cut short.
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    try {
      for (;;) {
        const n = fs.readSync(fd, buffer, length, buffer.length - length, null);
        if (n === 0) break;
        length += n;
        if (length > maxBytes) {
          throw new BacklotError('FILE_TOO_LARGE', `${capitalize(what)} ${file} grew past ${maxBytes} bytes while it was read.`, { path: file, limit: maxBytes });
        }
      }
    } catch (e) {
      if (e instanceof BacklotError) throw e;
      throw ioError(e, `read ${what}`, file);
    }
    return buffer.toString('utf8', 0, length);
  } finally {
    fs.closeSync(fd);
  }
}

function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
