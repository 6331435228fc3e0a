// The host services a job carries (docs/architecture.md "The one pipeline of a unit"): what an adapter
// reads of the host comes through the job or back on its outcome, never through module-level state,
// and nothing a pool worker runs needs them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { Host } from '../../src-main/host/host';
import { VirtualClock } from '../../src-main/system/clock';
import { hostServices, type JobContext, type JobServices } from '../../src-main/engines/adapter';
import { PRODUCTION_ADAPTERS } from '../../src-main/engines/registry';
import { wordTurnMergeAdapter } from '../../src-main/engines/word-turn-merge/adapter';
import { ranAsBoth } from '../../src-main/engines/publisher-transcript/both';
import type { EngineSuccess } from '../../src-main/engines/runner';
import { ProfileStore } from '../../src-main/speakers/profiles/profile-store';
import { commitVoices, speakerMapFor } from '../../src-main/speakers/host-side';
import { isBacklotError } from '../../src-shared/errors';
import { recordOf, segmentOf } from '../transcripts/fixtures/records';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

function library(): { host: Host; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-job-services-'));
  dirs.push(dir);
  const host = new Host({ databaseFile: path.join(dir, 'b.sqlite'), clock: new VirtualClock(0) });
  host.transaction(() => {
    host.library.addChannel({ id: 'c1', kind: 'folder', platform: 'folder', title: 'C', source: '/c1' }, 0);
    host.library.addItem({ id: 'a', channel_id: 'c1', external_id: 'a', title: 'a', published_at: 0, media_state: 'local' }, 0);
  });
  return { host, dir };
}

function jobOf(host: Host, dir: string, services: JobServices | undefined): JobContext {
  return {
    env: { dataDir: dir } as JobContext['env'], jobId: 'j1', outputDir: dir, operation: 'attribute-words',
    channel: host.library.channel('c1')!, item: host.library.item('a')!, inputs: { transcribe: 't.json', diarize: 'd.json' },
    attempts: 0, defaultOutputDir: dir, budgetUsd: null, ...(services ? { services } : {}),
  };
}

it('word-turn-merge reads the speaker map once, at prepare, and launches and checks its commit with that one', async () => {
  const { host, dir } = library();
  const profiles = new ProfileStore(host.db, host.work);
  const emb = [1, 0, 0];
  host.transaction(() => commitVoices(profiles, 'a', { version: 1, model: 'm', threshold: 0.5, matches: [{ cluster: 0, profile: null, similarity: null, seconds: 5, embedding: emb }] }, 1));
  const job = jobOf(host, dir, { profiles: new ProfileStore(host.db), acquisition: null as unknown as JobServices['acquisition'], library: host.library });
  job.prepared = await wordTurnMergeAdapter.prepare!(job);
  const used = job.prepared.speakerMap!;
  expect(Object.keys(used)).toEqual(['0']);
  expect(used['0']).toEqual(expect.any(String));

  // The profiles change after the prepare: the launch and the commit's check still carry the prepared map.
  host.transaction(() => profiles.forget(used['0']!));
  expect(speakerMapFor(new ProfileStore(host.db), 'a')).not.toEqual(used);
  const launch = await wordTurnMergeAdapter.launch(job);
  expect(launch.kind === 'process' && launch.input.speakers).toEqual(used);
  const transcript = path.join(dir, 'labelled.json');
  fs.writeFileSync(transcript, JSON.stringify(recordOf([segmentOf('Nets dry in the sun.', 0, null)])));
  const outcome: EngineSuccess = { ok: true, outputs: [{ name: 'transcript', path: transcript, bytes: fs.statSync(transcript).size }], metadata: {}, logs: [], diagnostic: '' };
  const plan = await wordTurnMergeAdapter.commit!(job, outcome);
  expect(plan.plans?.[0]).toEqual({ kind: 'speaker-map-unchanged', itemId: 'a', used: JSON.stringify(used) });
  host.close();
});

it('a job built without services (a pool worker\'s) refuses a host read with a code, and no remotable engine prepares', async () => {
  const { host, dir } = library();
  const job = jobOf(host, dir, undefined);
  let code = 'accepted';
  try {
    await wordTurnMergeAdapter.prepare!(job);
  } catch (e) {
    code = isBacklotError(e) ? e.code : String(e);
  }
  expect(code).toBe('HOST_SERVICES_MISSING');
  expect(() => hostServices(job)).toThrow(/runs on the host only/);
  // What a worker runs is the program a remotable adapter's launch names; none of them reads the host first.
  const remotable = PRODUCTION_ADAPTERS.filter((a) => a.remotable === true);
  expect(remotable.length).toBeGreaterThan(0);
  expect(remotable.filter((a) => a.prepare !== undefined).map((a) => a.id)).toEqual([]);
  host.close();
});

it('publisher-transcript\'s both mark travels on the outcome: none, delivered, or the source\'s refusal', () => {
  const outcome = (metadata: Record<string, unknown>): EngineSuccess => ({ ok: true, outputs: [], metadata, logs: [], diagnostic: '' });
  expect(ranAsBoth(outcome({ fetchMs: 3 }))).toBeNull();
  expect(ranAsBoth(outcome({ both: { sourceRefusal: null } }))).toEqual({ sourceRefusal: null });
  expect(ranAsBoth(outcome({ both: { sourceRefusal: 'PUBLISHER_TRANSCRIPT_NOT_FOUND' } }))).toEqual({ sourceRefusal: 'PUBLISHER_TRANSCRIPT_NOT_FOUND' });
});
