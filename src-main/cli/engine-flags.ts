// The flags `serve` and `run` share: which engine profile runs, and the test engines' pace and
// faults (tests only), so both commands read them one way.
import { CliUsageError } from './args';
import { ENGINE_PROFILES, type EngineProfile } from '../engines/adapter';
import type { TestEngineOptions } from '../engines/test-engine/adapter';

export function engineProfileFlag(value: string | undefined): EngineProfile {
  const engines = value ?? 'production';
  if (!(ENGINE_PROFILES as readonly string[]).includes(engines)) throw new CliUsageError(`--engines must be one of ${ENGINE_PROFILES.join(', ')}, got "${engines}".`);
  return engines as EngineProfile;
}

/**
 * The test profile's options: `--test-chunk-ms` and `BACKLOT_TEST_FAULTS`, the test engines'
 * misbehaviour on request, as JSON `{ "<item>" | "<operation>:<item>": { crash | hang | garbage |
 * exitCode | errorCode ...: value } }`; `BACKLOT_TEST_LONG_LIVED=1` runs the test engines as
 * long-lived workers, one process taking unit after unit as the production engines that keep a model
 * loaded do (the load benchmark's engines, docs/benchmarks.md "Session 8: ten windows"). Read only
 * with `--engines test`; production never sees them.
 */
export function testEngineOptions(profile: EngineProfile, chunkMsFlag: string | undefined, faultsEnv: string | undefined, longLivedEnv?: string): TestEngineOptions | undefined {
  const chunkMs = chunkMsFlag === undefined ? undefined : Number(chunkMsFlag);
  if (chunkMs !== undefined && !(Number.isFinite(chunkMs) && chunkMs >= 0)) throw new CliUsageError(`--test-chunk-ms must be a number of milliseconds, got "${chunkMsFlag}".`);
  const faults = profile === 'test' ? testFaults(faultsEnv) : undefined;
  const longLived = profile === 'test' && testLongLived(longLivedEnv);
  return chunkMs === undefined && faults === undefined && !longLived ? undefined : { chunkMs, faults, ...(longLived ? { longLived } : {}) };
}

function testLongLived(value: string | undefined): boolean {
  if (value === undefined || value === '' || value === '0') return false;
  if (value === '1') return true;
  throw new CliUsageError(`BACKLOT_TEST_LONG_LIVED must be 1 or 0, got "${value}".`);
}

function testFaults(value: string | undefined): Record<string, Record<string, unknown>> | undefined {
  if (value === undefined || value === '') return undefined;
  let parsed: unknown;
  try { parsed = JSON.parse(value); } catch { parsed = null; }
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(parsed) || !Object.values(parsed).every(isObject)) {
    throw new CliUsageError('BACKLOT_TEST_FAULTS must be a JSON object of objects, e.g. {"<item>": {"crash": 1}}.');
  }
  return parsed as Record<string, Record<string, unknown>>;
}
