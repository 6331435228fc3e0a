// Platform cooldowns (DESIGN §5 "Cooldown"): a refusal (429, a bot check) is a fact about the
// platform, not the item, so it holds the acquisition lanes (NETWORK_COOLDOWN {platform, until})
// with a backoff that doubles across refusals in a row, honours Retry-After, and survives a
// restart (table network_cooldowns). A success on the platform forgets the streak.
import type { Db } from '../db/connection';
import { CATALOG } from '../../src-shared/catalog/operations';
import type { LaneGate } from './chain';

export interface Cooldown {
  platform: string;
  until: number;
  level: number;
  lastRefusalAt: number;
  code: string;
}

export interface CooldownPolicy {
  baseS: number;
  maxS: number;
}

/** The lanes a platform's refusal holds: those of the sync and download engines that talk to the network. */
export const ACQUISITION_LANES: ReadonlySet<string> = new Set(CATALOG
  .filter((op) => op.id === 'sync' || op.id === 'download')
  .flatMap((op) => op.engines.filter((e) => e.lane.contendsFor.includes('network')).map((e) => e.lane.queueKey)));

/** level 1 waits base seconds, each further refusal twice as long, up to max; never before Retry-After. */
export function cooldownSeconds(level: number, policy: CooldownPolicy, retryAfterS: number | null): number {
  const backoff = Math.min(policy.maxS, policy.baseS * 2 ** Math.max(0, level - 1));
  return Math.max(backoff, retryAfterS ?? 0);
}

export class CooldownStore {
  private readonly byPlatform = new Map<string, Cooldown>();
  private readonly q;

  constructor(db: Db) {
    this.q = {
      all: db.prepare('SELECT platform, until, level, last_refusal_at AS lastRefusalAt, code FROM network_cooldowns'),
      upsert: db.prepare(`INSERT INTO network_cooldowns (platform, until, level, last_refusal_at, code) VALUES (@platform, @until, @level, @lastRefusalAt, @code)
        ON CONFLICT (platform) DO UPDATE SET until = excluded.until, level = excluded.level, last_refusal_at = excluded.last_refusal_at, code = excluded.code`),
      remove: db.prepare('DELETE FROM network_cooldowns WHERE platform = ?'),
    };
    for (const c of this.q.all.all() as Cooldown[]) this.byPlatform.set(c.platform, c);
  }

  /**
   * A refusal: the streak grows when the last refusal is recent (within the longest cooldown after
   * its end), else it starts again at 1. Returns the cooldown now in force.
   */
  refuse(platform: string, code: string, retryAfterS: number | null, policy: CooldownPolicy, now: number): Cooldown {
    const last = this.byPlatform.get(platform);
    const streak = last && now - last.until <= policy.maxS ? last.level + 1 : 1;
    const until = now + cooldownSeconds(streak, policy, retryAfterS);
    const c: Cooldown = { platform, until: Math.max(until, last?.until ?? 0), level: streak, lastRefusalAt: now, code };
    this.q.upsert.run(c);
    this.byPlatform.set(platform, c);
    return c;
  }

  /** The platform answered again: the next refusal starts a new streak. */
  succeeded(platform: string): void {
    if (!this.byPlatform.has(platform)) return;
    this.q.remove.run(platform);
    this.byPlatform.delete(platform);
  }

  get(platform: string): Cooldown | undefined {
    return this.byPlatform.get(platform);
  }

  /** When the first cooldown in force at `now` ends (null: none); asked at every instant, so no list is built. */
  firstEnd(now: number): number | null {
    let first: number | null = null;
    for (const c of this.byPlatform.values()) if (c.until > now && (first === null || c.until < first)) first = c.until;
    return first;
  }

  /** Cooldowns in force at `now`, the one that ends last first. */
  active(now: number): Cooldown[] {
    return [...this.byPlatform.values()].filter((c) => c.until > now).sort((a, b) => b.until - a.until || (a.platform < b.platform ? -1 : 1));
  }
}

/**
 * The gate: while any platform cools down, the acquisition lanes hold. Lanes are shared by every
 * platform in this build, so a refusal from one platform also holds the others' syncs and
 * downloads until it ends (docs/acquisition.md "Politeness").
 */
export function networkCooldownGate(store: CooldownStore): LaneGate {
  return {
    id: 'network-cooldown',
    hold: ({ lane, now }) => {
      if (!ACQUISITION_LANES.has(lane.queueKey)) return null;
      const c = store.active(now)[0];
      return c ? { code: 'NETWORK_COOLDOWN', params: { platform: c.platform, until: c.until, lane: lane.queueKey, refusals: c.level } } : null;
    },
    nextChange: ({ lane, now }) => (ACQUISITION_LANES.has(lane.queueKey) ? store.firstEnd(now) : null),
  };
}
