// `backlot pool add|list|remove|token` (docs/pools.md "The commands"): declares pools, their Redis
// users, door tokens and join files. Only these commands and a pool's own work ever touch Redis.
import type { Command } from './index';
import { CliUsageError, parseCommandArgs } from '../args';
import { existingLibraryFile } from '../data-dir';
import { openDatabase } from '../../db/connection';
import { SettingsStore } from '../../settings/settings-store';
import { BacklotError } from '../../../src-shared/errors';
import { PoolAdmin } from '../../pools/pool-admin';
import { checkPoolName, parseLanes, parseLease, parseMaps, parseMedia, parseRedisUrl, parseSlots } from '../../pools/pool-spec';
import type { PoolRecord } from '../../pools/pool-store';

const USAGE = 'pool add NAME --lanes gpu[,cpu,download] [--slots gpu=2] [--media http|shared] [--map HOSTPATH=WORKERPATH]... [--lease S] [--redis URL] [--worker-listen HOST:PORT] --join-file FILE'
  + ' | pool list [--json] | pool remove NAME [--drain] | pool token NAME --rotate [--join-file FILE]  (each: [--data DIR])';

const FLAGS = {
  data: { type: 'string' }, json: { type: 'boolean' }, lanes: { type: 'string' }, slots: { type: 'string', multiple: true },
  media: { type: 'string' }, map: { type: 'string', multiple: true }, lease: { type: 'string' }, redis: { type: 'string' },
  'worker-listen': { type: 'string' }, 'join-file': { type: 'string' }, drain: { type: 'boolean' }, rotate: { type: 'boolean' },
} as const;

const out = (line: string): void => { process.stdout.write(`${line}\n`); };

function describe(p: PoolRecord): string {
  const slots = p.lanes.map((l) => `${l}${p.slots[l] ? `=${p.slots[l]}` : ''}`).join(',');
  const maps = p.maps.length ? ` maps ${p.maps.map((m) => `${m.host}=${m.worker}`).join(' ')}` : '';
  return `${p.name.padEnd(16)} lanes ${slots}  media ${p.media}  lease ${p.leaseS}s  redis ${p.redisUrl}  join file ${p.joinFile}${maps}`;
}

export const poolCommand: Command = {
  name: 'pool',
  summary: 'Declare pools of other machines: add, list, remove, rotate their credentials',
  usage: 'pool add NAME --lanes L[,L] --join-file FILE | list | remove NAME [--drain] | token NAME --rotate',
  help: `backlot ${USAGE}`,
  async run(args) {
    const { values: v, positionals } = parseCommandArgs(args, FLAGS as never, USAGE) as unknown as {
      values: { data?: string; json?: boolean; lanes?: string; slots?: string[]; media?: string; map?: string[]; lease?: string; redis?: string; 'worker-listen'?: string; 'join-file'?: string; drain?: boolean; rotate?: boolean };
      positionals: string[];
    };
    const [verb, name, ...extra] = positionals;
    if (extra.length > 0) throw new CliUsageError(`pool ${verb} takes one name. Usage: backlot ${USAGE}`);
    if (verb === 'add') {
      // Every argument is checked before the library or Redis is opened: a refusal makes nothing.
      const spec = { name: checkPoolName(name), lanes: parseLanes(v.lanes), slots: {}, media: parseMedia(v.media), maps: parseMaps(v.map ?? []), leaseS: parseLease(v.lease) };
      spec.slots = parseSlots(v.slots ?? [], spec.lanes);
      if (v.redis !== undefined) parseRedisUrl(v.redis);
      if (!v['join-file']) throw new BacklotError('JOIN_FILE_MISSING', 'pool add needs --join-file FILE: where to write what the pool\'s workers need.');
      return withPools(v.data, async (admin) => {
        const made = await admin.add(spec, v['join-file']!, { redis: v.redis, workerListen: v['worker-listen'] });
        if (v.json) out(JSON.stringify({ pool: made.pool, joinFile: made.joinFile }));
        else out(`Pool ${spec.name} added; its join file (owner-only, holds its credentials) is ${made.joinFile}. On the worker: backlot worker check --join ${made.joinFile}`);
        return 0;
      });
    }
    if (verb === 'list') {
      if (name !== undefined) throw new CliUsageError(`pool list takes no name. Usage: backlot ${USAGE}`);
      return withPools(v.data, async (admin) => {
        const pools = admin.store.list();
        if (v.json) out(JSON.stringify({ pools }));
        else if (pools.length === 0) out('No pool exists; every unit runs on this machine.');
        else for (const p of pools) out(describe(p));
        return 0;
      });
    }
    if (verb === 'remove') {
      const pool = checkPoolName(name);
      return withPools(v.data, async (admin) => {
        const r = await admin.remove(pool, { drain: v.drain, redis: v.redis });
        out(`Pool ${pool} removed${r.userExisted ? '; its Redis user is deleted and its workers disconnected' : '; Redis had no user for it any more'}.`);
        return 0;
      });
    }
    if (verb === 'token') {
      const pool = checkPoolName(name);
      if (!v.rotate) throw new CliUsageError(`pool token needs --rotate. Usage: backlot ${USAGE}`);
      return withPools(v.data, async (admin) => {
        const r = await admin.rotate(pool, { joinFile: v['join-file'], redis: v.redis, workerListen: v['worker-listen'] });
        out(`Pool ${pool}: new Redis password and door token; the old ones no longer work. New join file: ${r.joinFile}`);
        return 0;
      });
    }
    throw new CliUsageError(`pool needs add, list, remove or token. Usage: backlot ${USAGE}`);
  },
};

async function withPools(dataDir: string | undefined, fn: (admin: PoolAdmin) => Promise<number>): Promise<number> {
  const db = openDatabase(existingLibraryFile(dataDir));
  try {
    return await fn(new PoolAdmin(db, new SettingsStore(db)));
  } finally {
    db.close();
  }
}
