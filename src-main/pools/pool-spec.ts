// What a pool declares, checked before anything is made (docs/pools.md "The commands"): each
// refusal is a code and one sentence naming the bad part, so `pool add` never half-makes a pool.
import { BacklotError } from '../../src-shared/errors';
import { LANE_KEYS, isLaneKey, type LaneKey } from '../../src-shared/catalog/lanes';

export const POOL_MEDIA = ['http', 'shared'] as const;
export type PoolMedia = (typeof POOL_MEDIA)[number];

export interface PathMap { host: string; worker: string }

export interface PoolSpec {
  name: string;
  lanes: LaneKey[];
  /** Declared slots per lane; a lane without an entry takes what its workers advertise. */
  slots: Partial<Record<LaneKey, number>>;
  media: PoolMedia;
  maps: PathMap[];
  leaseS: number;
}

export const LEASE_MIN_S = 5;
export const LEASE_MAX_S = 600;
export const DEFAULT_LEASE_S = 30;
export const MAX_SLOTS = 64;

/** Lower-case letters, digits and inner dashes: safe in a Redis key pattern, a user name and a lane (`gpu@studio`). */
const NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

export function checkPoolName(name: string | undefined): string {
  if (name === undefined || name === '') throw new BacklotError('POOL_NAME_MISSING', 'Name the pool, e.g. "backlot pool add studio --lanes gpu --join-file studio.join".');
  if (name.length > 32 || !NAME.test(name)) {
    throw new BacklotError('POOL_NAME_INVALID', `Pool name "${name}" must be 1 to 32 lower-case letters, digits and single inner dashes, starting with a letter (e.g. studio, gpu-box-2).`, { name });
  }
  return name;
}

export function parseLanes(text: string | undefined): LaneKey[] {
  if (text === undefined || text.trim() === '') throw new BacklotError('POOL_LANES_MISSING', `A pool needs --lanes, a comma-separated list of ${LANE_KEYS.join(', ')}.`);
  const lanes: LaneKey[] = [];
  for (const raw of text.split(',')) {
    const lane = raw.trim();
    if (!isLaneKey(lane)) throw new BacklotError('POOL_LANE_UNKNOWN', `"${lane}" in --lanes is not a lane; the lanes are ${LANE_KEYS.join(', ')}.`, { lane });
    if (lanes.includes(lane)) throw new BacklotError('POOL_LANE_REPEATED', `--lanes names "${lane}" twice.`, { lane });
    lanes.push(lane);
  }
  return lanes;
}

/** `gpu=2,cpu=4` (or several --slots flags joined with commas): only declared lanes, whole numbers 1..64. */
export function parseSlots(texts: readonly string[], lanes: readonly LaneKey[]): Partial<Record<LaneKey, number>> {
  const slots: Partial<Record<LaneKey, number>> = {};
  for (const part of texts.flatMap((t) => t.split(',')).map((p) => p.trim()).filter((p) => p !== '')) {
    const m = /^([a-z]+)=(.*)$/.exec(part);
    if (!m) throw new BacklotError('POOL_SLOTS_INVALID', `--slots "${part}" must be LANE=N, e.g. gpu=2.`, { slots: part });
    const [, lane, count] = m;
    if (!(lanes as readonly string[]).includes(lane)) throw new BacklotError('POOL_SLOTS_LANE', `--slots names lane "${lane}", which this pool does not declare in --lanes (${lanes.join(', ')}).`, { lane });
    if (!/^\d+$/.test(count) || Number(count) < 1 || Number(count) > MAX_SLOTS) {
      throw new BacklotError('POOL_SLOTS_INVALID', `--slots ${lane}=${count} must be a whole number from 1 to ${MAX_SLOTS}.`, { lane, count });
    }
    if (slots[lane as LaneKey] !== undefined) throw new BacklotError('POOL_SLOTS_INVALID', `--slots gives lane "${lane}" twice.`, { lane });
    slots[lane as LaneKey] = Number(count);
  }
  return slots;
}

export function parseMedia(text: string | undefined): PoolMedia {
  if (text === undefined) return 'http';
  if (!(POOL_MEDIA as readonly string[]).includes(text)) throw new BacklotError('POOL_MEDIA_INVALID', `--media must be http or shared, got "${text}".`, { media: text });
  return text as PoolMedia;
}

/** One absolute path, written segment by segment: no `.`/`..` and no empty segment, so a mapping never escapes its folder. */
function checkMapPath(p: string, side: string, whole: string): string {
  const isAbsolute = p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p);
  if (!isAbsolute) throw new BacklotError('POOL_MAP_INVALID', `--map "${whole}": the ${side} path must be absolute.`, { map: whole });
  const body = p.replace(/^[A-Za-z]:/, '').replace(/[\\/]+$/, '');
  const segments = body.split(/[\\/]/).slice(1);
  if (segments.some((s) => s === '..' || s === '.')) throw new BacklotError('POOL_MAP_INVALID', `--map "${whole}": the ${side} path must not contain . or .. segments.`, { map: whole });
  if (segments.some((s) => s === '')) throw new BacklotError('POOL_MAP_INVALID', `--map "${whole}": the ${side} path has an empty segment (a doubled slash).`, { map: whole });
  const trimmed = p.replace(/[\\/]+$/, '');
  return trimmed === '' || /^[A-Za-z]:$/.test(trimmed) ? p : trimmed;
}

export function parseMaps(texts: readonly string[]): PathMap[] {
  const maps: PathMap[] = [];
  for (const whole of texts) {
    const eq = whole.indexOf('=');
    if (eq <= 0 || eq === whole.length - 1) throw new BacklotError('POOL_MAP_INVALID', `--map "${whole}" must be HOSTPATH=WORKERPATH.`, { map: whole });
    const host = checkMapPath(whole.slice(0, eq), 'host', whole);
    const worker = checkMapPath(whole.slice(eq + 1), 'worker', whole);
    if (maps.some((m) => m.host === host)) throw new BacklotError('POOL_MAP_INVALID', `--map maps host path ${host} twice.`, { map: whole });
    maps.push({ host, worker });
  }
  return maps;
}

export function parseLease(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LEASE_S;
  if (!/^\d+$/.test(text) || Number(text) < LEASE_MIN_S || Number(text) > LEASE_MAX_S) {
    throw new BacklotError('POOL_LEASE_INVALID', `--lease must be a whole number of seconds from ${LEASE_MIN_S} to ${LEASE_MAX_S}, got "${text}".`, { lease: text });
  }
  return Number(text);
}

/** A Redis URL: redis:// or rediss://, a host, a port; credentials are allowed (the admin's). */
export function parseRedisUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BacklotError('REDIS_URL_INVALID', `"${redact(text)}" is not a URL; give redis://HOST:PORT or rediss://HOST:PORT.`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new BacklotError('REDIS_URL_INVALID', `The Redis URL must start with redis:// or rediss://, got ${url.protocol}//.`);
  if (url.hostname === '') throw new BacklotError('REDIS_URL_INVALID', 'The Redis URL names no host.');
  if (url.pathname !== '' && url.pathname !== '/' && !/^\/\d{1,2}$/.test(url.pathname)) throw new BacklotError('REDIS_URL_INVALID', 'The Redis URL\'s path may only be a database number, e.g. /0.');
  return url;
}

/** A URL for messages and the database: never its password. */
export function redact(text: string): string {
  try {
    const u = new URL(text);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return text.replace(/:[^:@/]*@/, ':***@');
  }
}
