// The handlers of the pool methods (src-shared/api/pools-contract.ts): the window's Pools page adds
// and removes a pool through PoolAdmin with exactly the checks of `backlot pool add|remove`
// (docs/pools.md "The commands"); the join file goes to <data>/pools/NAME.join (docs/window.md "Pools").
import fs from 'node:fs';
import path from 'node:path';
import type { ApiHandlers } from '../../src-shared/api/contract';
import type { PoolDto } from '../../src-shared/api/pools-contract';
import type { Host } from '../host/host';
import { SettingsStore } from '../settings/settings-store';
import { PoolAdmin } from '../pools/pool-admin';
import type { PoolRecord } from '../pools/pool-store';
import { checkPoolName, parseLanes, parseLease, parseMaps, parseMedia, parseSlots } from '../pools/pool-spec';

type PoolMethods = 'pools.list' | 'pools.add' | 'pools.remove';

/** The folder of the join files the window writes: owner-only, inside the library's data folder. */
export const joinFolder = (dataDir: string): string => path.join(dataDir, 'pools');

/** The one command for the other machine, run where the join file was copied to (docs/window.md "Pools"). */
export const workerCommand = (joinFile: string): string => `backlot worker --join ${path.basename(joinFile)}`;

const dto = (p: PoolRecord): PoolDto => ({
  name: p.name, lanes: p.lanes, slots: p.slots as Record<string, number>, media: p.media, maps: p.maps, leaseS: p.leaseS,
  redisUrl: p.redisUrl, joinFile: p.joinFile, createdAt: p.createdAt, rotatedAt: p.rotatedAt,
});

/** `doorOpen`: whether this host opened the worker door and transport at its start (docs/pools.md). */
export function createPoolHandlers(host: Host, dataDir: string, doorOpen: () => boolean): Pick<ApiHandlers, PoolMethods> {
  const admin = new PoolAdmin(host.db, new SettingsStore(host.db), { now: () => host.now() });
  const state = () => ({ pools: admin.store.list().map(dto), doorOpen: doorOpen() });
  const changed = () => host.emit('lanes-changed');

  return {
    'pools.list': () => state(),

    'pools.add': async (r) => {
      // The CLI's own parsers on the CLI's own spelling, so every refusal has the same code.
      const name = checkPoolName(r.name);
      const lanes = parseLanes(r.lanes.join(','));
      const spec = {
        name, lanes,
        slots: parseSlots(Object.entries(r.slots ?? {}).map(([lane, n]) => `${lane}=${n}`), lanes),
        media: parseMedia(r.media), maps: parseMaps((r.maps ?? []).map((m) => `${m.host}=${m.worker}`)),
        leaseS: parseLease(r.leaseS === undefined ? undefined : String(r.leaseS)),
      };
      const folder = joinFolder(dataDir);
      fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
      const made = await admin.add(spec, path.join(folder, `${name}.join`), { workerListen: r.workerListen });
      changed();
      return { ...state(), pool: dto(made.pool), joinFile: made.joinFile, command: workerCommand(made.joinFile) };
    },

    'pools.remove': async ({ name, drain }) => {
      const pool = checkPoolName(name);
      const joinFile = admin.store.get(pool)?.joinFile;
      const r = await admin.remove(pool, { drain });
      // A join file the window wrote is removed with its pool (its credentials no longer work), so
      // the name can be added again; one written elsewhere by `pool add --join-file` is left alone.
      if (joinFile !== undefined && path.dirname(path.resolve(joinFile)) === path.resolve(joinFolder(dataDir))) fs.rmSync(joinFile, { force: true });
      changed();
      return { ...state(), name: pool, userExisted: r.userExisted };
    },
  };
}
