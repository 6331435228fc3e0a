// One dispatcher per database: a lock row with a lease. A second dispatcher is refused with the
// process that holds it named; a holder that died (its lease lapsed, or on this machine its pid
// is gone, a zombie, or now another process's) is taken over at once.
import os from 'node:os';
import type { Db } from '../db/connection';
import { BacklotError } from '../../src-shared/errors';
import { holderAlive, ownStartTime } from '../system/process-alive';

export interface LockHolder {
  owner: string;
  pid: number;
  hostname: string;
  expires_at: number;
}

/**
 * The owner column names the holder's incarnation: its random id, then `@` and the OS start time
 * of its process (process-alive.ts), the way a scan lease names host, pid and start. A pid
 * recycled after a kill -9 has another start time, so it is never mistaken for the holder.
 */
export function holderStartTime(owner: string): string | null {
  const at = owner.lastIndexOf('@');
  return at < 0 || at === owner.length - 1 ? null : owner.slice(at + 1);
}

export class DispatcherLock {
  private readonly hostname = os.hostname();
  /** What this process writes as the owner: the caller's id and this process's start time. */
  private readonly incarnation: string;

  constructor(private readonly db: Db, readonly owner: string, private readonly leaseS = 30, private readonly now = () => Date.now() / 1000) {
    this.incarnation = `${owner}@${ownStartTime() ?? ''}`;
  }

  holder(): LockHolder | undefined {
    return this.db.prepare('SELECT owner, pid, hostname, expires_at FROM dispatcher_lock WHERE id = 1').get() as LockHolder | undefined;
  }

  acquire(): void {
    this.db.transaction(() => {
      const h = this.holder();
      const t = this.now();
      if (h && h.owner !== this.incarnation && h.expires_at > t) {
        const sameMachine = h.hostname === this.hostname;
        const stillThere = sameMachine ? h.pid !== process.pid && holderAlive(h.pid, holderStartTime(h.owner)) : true;
        if (stillThere) {
          throw new BacklotError('DISPATCHER_RUNNING', `Another Backlot dispatcher (process ${h.pid} on ${h.hostname}) is already running on this library; close it first.`, { pid: h.pid, hostname: h.hostname });
        }
      }
      this.db.prepare(`INSERT INTO dispatcher_lock (id, owner, pid, hostname, expires_at) VALUES (1, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, hostname = excluded.hostname, expires_at = excluded.expires_at`)
        .run(this.incarnation, process.pid, this.hostname, t + this.leaseS);
    })();
  }

  /** Extends the lease; false if another dispatcher took the lock over meanwhile. */
  renew(): boolean {
    return this.db.prepare('UPDATE dispatcher_lock SET expires_at = ? WHERE id = 1 AND owner = ?').run(this.now() + this.leaseS, this.incarnation).changes === 1;
  }

  release(): void {
    this.db.prepare('DELETE FROM dispatcher_lock WHERE id = 1 AND owner = ?').run(this.incarnation);
  }
}
