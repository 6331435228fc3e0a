// An I/O failure as the user meets it: the code IO_ERROR, the path, the errno and one sentence,
// never a stack trace (house rule; issue 9 "I/O errors carry their own codes").
import { BacklotError } from '../../src-shared/errors';

export function ioError(e: unknown, verb: string, file: string): BacklotError {
  const errno = (e as NodeJS.ErrnoException | undefined)?.code ?? 'EIO';
  return new BacklotError('IO_ERROR', `Cannot ${verb} ${file}: ${errno}.`, { path: file, errno });
}

export function isErrno(e: unknown): e is NodeJS.ErrnoException {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string';
}
