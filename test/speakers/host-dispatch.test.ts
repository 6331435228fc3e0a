// The speaker engines through the real host and the command line (docs/speakers.md "Engines"): a
// folder library with a two-person dialog and a separate recording of one of them, `backlot run
// --until-idle --json` with the production engines; the whole pipeline ends done, the reader is one
// profile across both files, the labelled transcript names profiles, and `backlot speakers list
// --json` shows the two people.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { Host } from '../../src-main/host/host';
import { makeDialog, recordingWav } from '../../src-main/bench/speaker-dialogs';
import { ProfileStore } from '../../src-main/speakers/profiles/profile-store';
import { turnsRecord } from '../../src-shared/speakers/turns';
import { ROOT, tempDir } from './fixtures';

const dir = tempDir('host-dispatch');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function backlot(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'backlot.mjs'), ...args, '--data', path.join(dir, 'data')], { encoding: 'utf8', cwd: ROOT });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

it('backlot run diarizes and attributes the voices of a folder library with the production engines', () => {
  const media = path.join(dir, 'media');
  const work = path.join(dir, 'work');
  fs.mkdirSync(media);
  const dialog = makeDialog('dialog', [{ voice: 'reader', index: 0 }, { voice: 'cards', index: 4 }, { voice: 'reader', index: 2 }, { voice: 'cards', index: 1 }], work);
  fs.copyFileSync(dialog.file, path.join(media, 'dialog.wav'));
  fs.copyFileSync(recordingWav('reader', 3, work), path.join(media, 'reader-solo.wav'));
  expect(backlot('library', 'add', media).code).toBe(0);

  const run = backlot('run', '--until-idle', '--json', '--timeout', '600');
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  const units = lines.filter((l) => l.unit).map((l) => l.unit as { operation: string; title: string; outcome: string; code?: string });
  const speakerUnits = units.filter((u) => u.operation === 'diarize' || u.operation === 'attribute-voices');
  expect(speakerUnits.map((u) => `${u.operation} ${u.title} ${u.outcome}`).sort()).toEqual([
    'attribute-voices dialog done', 'attribute-voices reader-solo done', 'diarize dialog done', 'diarize reader-solo done',
  ]);
  // Nothing failed. A word attribution whose speakers changed while it ran (another item's voices
  // can still move a profile) is refused at its commit and requeued, counted apart, never a failure.
  expect(units.filter((u) => u.outcome === 'failed')).toEqual([]);
  const redone = units.filter((u) => u.outcome === 'requeued');
  for (const u of redone) expect(u).toMatchObject({ operation: 'attribute-words', code: 'INPUT_CHANGED' });
  expect(lines[lines.length - 1]).toMatchObject({ units: units.length, failed: 0, requeued: redone.length });
  // The words of an item are attributed only after its voices are settled (the catalog's settlesAfter).
  for (const title of ['dialog', 'reader-solo']) {
    const order = units.filter((u) => u.title === title).map((u) => u.operation);
    expect(order.indexOf('attribute-words'), title).toBeGreaterThan(order.indexOf('attribute-voices'));
  }

  const items = JSON.parse(backlot('items', '--json').stdout).items as { id: string; title: string; states: Record<string, string> }[];
  for (const i of items) expect(i.states).toMatchObject({ transcribe: 'done', diarize: 'done', 'attribute-voices': 'done', 'attribute-words': 'done', digest: 'done' });

  const host = new Host({ databaseFile: path.join(dir, 'data', 'backlot.sqlite') });
  try {
    const d = items.find((i) => i.title === 'dialog')!;
    const solo = items.find((i) => i.title === 'reader-solo')!;
    const turns = turnsRecord.parse(JSON.parse(fs.readFileSync(host.work.row('diarize', d.id)!.output_path!, 'utf8')));
    expect(turns).toMatchObject({ engine: 'vosk-xvector', model: 'vosk-model-spk-0.4' });
    expect(turns.clusters).toHaveLength(2);
    const profiles = new ProfileStore(host.db);
    // The reader speaks first in the dialog (cluster 0) and alone in the other file.
    expect(profiles.clustersOf(solo.id).get(0)).toBe(profiles.clustersOf(d.id).get(0));
    // The labelled transcript names profiles (never names): each speaker is one of the dialog's
    // (words outside every turn keep none).
    const labelled = JSON.parse(fs.readFileSync(host.work.row('attribute-words', d.id)!.output_path!, 'utf8')) as { segments: { speaker: string | null }[] };
    const dialogProfiles = new Set([...profiles.clustersOf(d.id).values()]);
    const named = labelled.segments.map((seg) => seg.speaker).filter((sp): sp is string => sp !== null);
    expect(named.length).toBeGreaterThan(0);
    for (const sp of named) expect(dialogProfiles, sp).toContain(sp);
  } finally {
    host.close();
  }
  const speakers = JSON.parse(backlot('speakers', 'list', '--json').stdout).speakers as { items: number }[];
  expect(speakers.map((s) => s.items)).toEqual([2, 1]);
});
