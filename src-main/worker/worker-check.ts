// `backlot worker check` (docs/pools.md "Checking a worker"): before a machine takes work, say in
// one list what works and what does not, each failure with a code and one sentence, from the join
// file to the Redis ACL, the worker door, the path mappings and each local engine.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BacklotError, isBacklotError } from '../../src-shared/errors';
import { defaultSettings } from '../../src-shared/settings/settings-schema';
import { readJoinFile, type JoinFile } from '../pools/join-file';
import { mappedFolderProblem } from '../pools/library-marker';
import { hostSettingsKey } from '../pools/transport/job-schema';
import { settingsForJob } from '../pools/transport/job-settings';
import { openRedis, redisError } from '../pools/redis-client';
import { DOOR_KIND } from '../pools/worker-door/door-server';
import { buildEngineRegistry } from '../engines/registry';
import { resourcesDir } from '../engines/resources';
import { detectGpus } from '../gates/gpu';
import type { EngineProfile } from '../engines/adapter';

export interface CheckResult {
  name: string;
  ok: boolean;
  code?: string;
  message: string;
}

export interface WorkerCheckReport {
  ok: boolean;
  checks: CheckResult[];
}

export interface WorkerCheckOptions {
  joinFile: string;
  /** The worker's own folder (models, scratch); never the host's. */
  dataDir: string;
  engines: EngineProfile;
  doorTimeoutMs?: number;
}

/** A key no pool can own (pool names have no underscore): every pool user must be refused it. */
export const FOREIGN_PROBE_KEY = 'bull:backlot-__no-pool__:worker-check';

const pass = (name: string, message: string): CheckResult => ({ name, ok: true, message });
const fail = (name: string, code: string, message: string): CheckResult => ({ name, ok: false, code, message });
const isLoopback = (host: string): boolean => host === 'localhost' || host === '[::1]' || host === '::1' || host.startsWith('127.');

export async function checkWorker(options: WorkerCheckOptions): Promise<WorkerCheckReport> {
  const checks: CheckResult[] = [];
  let join: JoinFile;
  try {
    const read = readJoinFile(options.joinFile);
    join = read.join;
    checks.push(pass('join-file', `${path.resolve(options.joinFile)} is a join file of pool ${join.pool}.`));
    checks.push(read.mode === 0o600
      ? pass('join-file-mode', 'The join file is readable by its owner only (0600).')
      : fail('join-file-mode', 'JOIN_FILE_MODE', `The join file holds credentials but has mode ${read.mode.toString(8).padStart(4, '0')}; run chmod 600 on it.`));
  } catch (e) {
    const err = isBacklotError(e) ? e : new BacklotError('JOIN_FILE_UNREADABLE', String(e));
    checks.push(fail('join-file', err.code, err.message));
    return { ok: false, checks };
  }
  const redis = await checkRedis(join);
  checks.push(...redis.checks);
  checks.push(await checkDoor(join, options.doorTimeoutMs ?? 3000));
  checks.push(...checkMaps(join));
  checks.push(...await checkEngines(join, options, redis.hostSettings));
  return { ok: checks.every((c) => c.ok), checks };
}

/** Redis's checks, and the host's job settings it holds (null before the host's first unit, or unreadable). */
async function checkRedis(join: JoinFile): Promise<{ checks: CheckResult[]; hostSettings: string | null }> {
  const found: { hostSettings: string | null } = { hostSettings: null };
  const checks = await redisChecks(join, async (client) => { found.hostSettings = await client.get(hostSettingsKey(join.pool)).catch(() => null); });
  return { checks, hostSettings: found.hostSettings };
}

async function redisChecks(join: JoinFile, read: (client: Awaited<ReturnType<typeof openRedis>>) => Promise<void>): Promise<CheckResult[]> {
  const url = new URL(join.redis.url);
  const where = `${url.protocol}//${url.host}`;
  const tlsSkipped = url.protocol === 'redis:'
    ? (isLoopback(url.hostname) ? pass('tls', `Not used: Redis is on this machine (${where}).`) : fail('tls', 'TRANSPORT_NOT_TLS', `Redis at ${where} is reached without TLS across a network; use a rediss:// URL (backlot transport serve).`))
    : null;
  let client;
  try {
    client = await openRedis({ url: join.redis.url, ca: join.redis.ca });
  } catch (e) {
    const err = redisError(e, join.redis.url);
    const notTried = (name: string) => fail(name, err.code, `Not tried: ${err.message}`);
    if (err.code === 'TRANSPORT_TLS_FAILED') return [pass('redis', `Redis at ${where} answers.`), fail('tls', err.code, err.message), notTried('acl-login'), notTried('acl-own-keys'), notTried('acl-isolation')];
    if (err.code === 'TRANSPORT_AUTH_FAILED') {
      return [pass('redis', `Redis at ${where} answers.`), tlsSkipped ?? pass('tls', `The certificate of ${where} is verified.`),
        fail('acl-login', 'POOL_AUTH_FAILED', `Redis refused the pool user ${decodeURIComponent(url.username)} and its password; the pool was removed or its credentials rotated (make a new join file with backlot pool token ${join.pool} --rotate).`),
        notTried('acl-own-keys'), notTried('acl-isolation')];
    }
    return [fail('redis', err.code, err.message), tlsSkipped ?? notTried('tls'), notTried('acl-login'), notTried('acl-own-keys'), notTried('acl-isolation')];
  }
  const out: CheckResult[] = [pass('redis', `Redis at ${where} answers.`), tlsSkipped ?? pass('tls', `The certificate of ${where} is verified.`),
    pass('acl-login', `The pool user ${decodeURIComponent(url.username)} logs in.`)];
  try {
    await read(client);
    const key = `${join.redis.keyPrefix}:worker-check:${crypto.randomBytes(6).toString('hex')}`;
    try {
      await client.set(key, '1', 'EX', 60);
      await client.del(key);
      out.push(pass('acl-own-keys', `The pool user writes its own keys (${join.redis.keyPrefix}:*).`));
    } catch (e) {
      const err = redisError(e, join.redis.url);
      out.push(fail('acl-own-keys', err.code, `The pool user cannot write its own keys: ${err.message}`));
    }
    try {
      await client.set(FOREIGN_PROBE_KEY, '1', 'EX', 60);
      await client.del(FOREIGN_PROBE_KEY);
      out.push(fail('acl-isolation', 'ACL_TOO_WIDE', 'The pool user may write keys outside its pool\'s prefix; recreate the pool (backlot pool remove, pool add) so its Redis user is restricted.'));
    } catch (e) {
      const err = redisError(e, join.redis.url);
      out.push(err.code === 'TRANSPORT_NOT_ALLOWED'
        ? pass('acl-isolation', 'Redis refuses the pool user every key outside its pool.')
        : fail('acl-isolation', err.code, `The isolation probe failed otherwise than by a refusal: ${err.message}`));
    }
  } finally {
    client.disconnect();
  }
  return out;
}

/** The host's worker door (docs/pools.md "The worker door"): reachable, a Backlot door, and this pool's token accepted. */
async function checkDoor(join: JoinFile, timeoutMs: number): Promise<CheckResult> {
  let res: Response;
  try {
    res = await fetch(new URL(`/worker/v1/pools/${encodeURIComponent(join.pool)}/hello`, join.door.url), { headers: { authorization: `Bearer ${join.door.token}` }, signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).name;
    return fail('door', 'WORKER_DOOR_UNREACHABLE', `The worker door at ${join.door.url} cannot be reached (${cause}); the host must run backlot serve, backlot run or the app, with this pool in its library.`);
  }
  let body: { door?: unknown; pool?: unknown; code?: unknown } = {};
  try { body = await res.json() as typeof body; } catch { body = {}; }
  if (res.ok && body.door === DOOR_KIND && body.pool === join.pool) return pass('door', `The worker door at ${join.door.url} accepts pool ${join.pool}'s token.`);
  if (res.status === 401 && body.code === 'DOOR_TOKEN_INVALID') {
    return fail('door', 'DOOR_TOKEN_INVALID', `The worker door at ${join.door.url} refused pool ${join.pool}'s token; the token was rotated or the pool removed (copy the new join file here).`);
  }
  return fail('door', 'WORKER_DOOR_UNEXPECTED', `${join.door.url} answered HTTP ${res.status}, but it is not a Backlot worker door.`);
}

function checkMaps(join: JoinFile): CheckResult[] {
  return join.maps.map((m) => {
    let stat: fs.Stats | null = null;
    try { stat = fs.statSync(m.worker); } catch { stat = null; }
    if (!stat?.isDirectory()) return fail(`map ${m.worker}`, 'MAP_TARGET_MISSING', `${m.worker}, where the host's ${m.host} should be mounted, is ${stat ? 'not a folder' : 'missing'} on this machine.`);
    // Shared media is read through the mapping: the folder must be this library's (docs/pools.md "Shared storage").
    const problem = join.media === 'shared' ? mappedFolderProblem(join.library, m.host, m.worker) : null;
    if (problem) return fail(`map ${m.worker}`, problem.code, problem.message);
    return pass(`map ${m.worker}`, `${m.worker} (the host's ${m.host}) is a folder here${join.media === 'shared' ? ' and holds this library\'s marker' : ''}.`);
  });
}

/**
 * Each engine's preflight, judged by the settings the host's units run with (the pool's
 * host-settings key, docs/pools.md "Preflight with the host's settings"), else by the defaults.
 */
async function checkEngines(join: JoinFile, options: WorkerCheckOptions, hostSettings: string | null): Promise<CheckResult[]> {
  const dataDir = path.resolve(options.dataDir);
  let settings = defaultSettings();
  let judged = pass('settings', 'Engines are judged by the default settings: the host has sent no unit to this pool yet (or Redis could not be read).');
  if (hostSettings !== null) {
    let parsed: unknown = null;
    try { parsed = JSON.parse(hostSettings); } catch { parsed = null; }
    const fromHost = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? settingsForJob(parsed as Record<string, unknown>) : { ok: false as const, reason: 'not a JSON object' };
    if (fromHost.ok) {
      settings = fromHost.settings;
      judged = pass('settings', 'Engines are judged by the settings the host runs units with.');
    } else {
      judged = fail('settings', 'HOST_SETTINGS_INVALID', `The host's settings in Redis are not ones this build accepts (${fromHost.reason}); units would fail as POOL_JOB_INVALID (update backlot here).`);
    }
  }
  const registry = await buildEngineRegistry({
    profile: options.engines,
    env: { dataDir, modelsDir: path.join(dataDir, 'models'), resourcesDir: resourcesDir(), settings, gpu: await detectGpus() },
  });
  const out: CheckResult[] = [judged];
  for (const lane of join.lanes) {
    const engines = registry.engines.filter((e) => e.enabled && e.lane.queueKey === lane);
    if (engines.length === 0) out.push(fail(`lane ${lane}`, 'NO_ENGINE_FOR_LANE', `No engine of this build runs on the ${lane} lane here.`));
    for (const e of engines) {
      out.push(e.preflight.ok
        ? pass(`engine ${e.adapter.id} (${e.adapter.operation}, ${lane})`, `Ready; fingerprint ${e.fingerprint}.`)
        : fail(`engine ${e.adapter.id} (${e.adapter.operation}, ${lane})`, e.preflight.code, `${e.preflight.message} (fingerprint ${e.fingerprint})`));
    }
  }
  return out;
}
