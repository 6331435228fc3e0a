// The join file (docs/pools.md "The join file"): everything a worker needs to join a pool, written
// owner-only from its first byte and atomically (the old file or the whole new one), read back
// with its shape and its mode checked.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { BacklotError } from '../../src-shared/errors';
import { LANE_KEYS } from '../../src-shared/catalog/lanes';
import { POOL_MEDIA } from './pool-spec';

export const JOIN_FORMAT = 'backlot-join-v1';

const joinSchema = z.object({
  format: z.literal(JOIN_FORMAT),
  pool: z.string().regex(/^[a-z][a-z0-9-]*$/),
  redis: z.object({ url: z.string().url(), ca: z.string().nullable(), queue: z.string(), keyPrefix: z.string() }),
  door: z.object({ url: z.string(), token: z.string().min(16) }),
  lanes: z.array(z.enum(LANE_KEYS)).min(1),
  slots: z.record(z.string(), z.number().int().positive()),
  leaseS: z.number().int().positive(),
  media: z.enum(POOL_MEDIA),
  maps: z.array(z.object({ host: z.string(), worker: z.string() })),
  /** The library's id (library-marker.ts): a shared-media worker finds it in each mapped folder. Older join files lack it. */
  library: z.string().regex(/^[0-9a-f]{32}$/).optional(),
});

export type JoinFile = z.infer<typeof joinSchema>;

/** Writes `join` to `file` with mode 0600; a failure leaves the previous file (or none) untouched. */
export function writeJoinFile(file: string, join: JoinFile): string {
  const target = path.resolve(file);
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.backlot-${process.pid}.tmp`);
  try {
    fs.rmSync(temporary, { force: true });
    const fd = fs.openSync(temporary, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
    try {
      fs.writeFileSync(fd, `${JSON.stringify(join, null, 2)}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.chmodSync(temporary, 0o600);
    fs.renameSync(temporary, target);
  } catch (e) {
    fs.rmSync(temporary, { force: true });
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    throw new BacklotError(code === 'ENOSPC' ? 'DISK_FULL' : 'JOIN_FILE_UNWRITABLE', `Cannot write the join file ${target}: ${code}.`, { file: target, errno: code });
  }
  return target;
}

export interface JoinRead {
  join: JoinFile;
  /** The file's permission bits (0o600 expected; POSIX only). */
  mode: number;
}

export function readJoinFile(file: string): JoinRead {
  const target = path.resolve(file);
  let text: string;
  let mode: number;
  try {
    mode = fs.statSync(target).mode & 0o777;
    text = fs.readFileSync(target, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    throw new BacklotError('JOIN_FILE_UNREADABLE', `Cannot read the join file ${target}: ${code}.`, { file: target, errno: code });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BacklotError('JOIN_FILE_INVALID', `${target} is not a join file (not JSON); make a new one with "backlot pool token NAME --rotate".`, { file: target });
  }
  const checked = joinSchema.safeParse(parsed);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new BacklotError('JOIN_FILE_INVALID', `${target} is not a valid join file (${issue.path.join('.') || 'top level'}: ${issue.message}).`, { file: target });
  }
  return { join: checked.data, mode };
}
