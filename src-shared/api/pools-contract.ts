// The contract's methods for pools of other machines (docs/pools.md, issue 18 §2): the window lists,
// adds and removes a pool through the same PoolAdmin and checks as `backlot pool add|list|remove`.
// Fields are loose here (strings, numbers) so a bad value is refused with the CLI's own code
// (POOL_LANE_UNKNOWN, POOL_SLOTS_INVALID…) rather than a schema's INVALID_REQUEST.
import { z } from 'zod';

export const poolDto = z.object({
  name: z.string(),
  lanes: z.array(z.string()),
  /** Declared slots per lane; a lane without one takes what its live workers advertise. */
  slots: z.record(z.string(), z.number().int()),
  media: z.string(),
  maps: z.array(z.object({ host: z.string(), worker: z.string() })),
  leaseS: z.number().int(),
  /** The Redis URL without credentials. */
  redisUrl: z.string(),
  /** Where the join file was last written (owner-only; it holds the pool's credentials). */
  joinFile: z.string(),
  createdAt: z.number(),
  rotatedAt: z.number().nullable(),
});
export type PoolDto = z.infer<typeof poolDto>;

const poolsState = {
  pools: z.array(poolDto),
  /** Whether this host opened the worker door and the transport at its start; false with a pool means: restart it. */
  doorOpen: z.boolean(),
};

export function poolsApi() {
  return {
    'pools.list': {
      request: z.object({}),
      response: z.object(poolsState),
    },
    'pools.add': {
      request: z.object({
        name: z.string().max(200),
        lanes: z.array(z.string().max(50)).max(20),
        slots: z.record(z.string().max(50), z.number()).optional(),
        media: z.string().max(50).optional(),
        maps: z.array(z.object({ host: z.string().max(4096), worker: z.string().max(4096) })).max(100).optional(),
        leaseS: z.number().optional(),
        workerListen: z.string().max(300).optional(),
      }),
      response: z.object({ ...poolsState, pool: poolDto, joinFile: z.string(), command: z.string() }),
    },
    'pools.remove': {
      request: z.object({ name: z.string().max(200), drain: z.boolean().optional() }),
      response: z.object({ ...poolsState, name: z.string(), userExisted: z.boolean() }),
    },
  } as const;
}
