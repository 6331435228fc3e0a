// A transcript and its search rows commit together or not at all, through the real path: the
// dispatcher claims, a transcribe engine runs as a child process, the executor renames its output
// into place and the completion transaction runs the adapter's record(), which indexes it. When the
// output's own record then fails (a trigger refuses the work row's write), the rename is undone and
// the index keeps what it had; the next good commit makes the new text findable at once.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src-main/dispatch/dispatcher';
import type { Host } from '../../src-main/host/host';
import type { GpuReport } from '../../src-main/gates/gpu';
import { defaultOutputDir } from '../../src-main/engines/job-paths';
import { indexTranscript } from '../../src-main/transcripts/search-index';
import { searchTranscripts } from '../../src-main/transcripts/search';
import { currentTranscript } from '../../src-main/transcripts/current-transcript';
import { retryWork } from '../../src-main/work/retry';
import { SettingsStore } from '../../src-main/settings/settings-store';
import { OPERATION_IDS } from '../../src-shared/catalog/operations';
import { engineSettingKey } from '../../src-shared/settings/settings-schema';
import { addChannel, addItem, openHost, removeTempDirs, tempDir } from './fixtures/library';
import { recordOf, segmentOf } from './fixtures/records';
import { transcriptTestAdapter } from './fixtures/transcript-adapter';

const noGpu: GpuReport = { controllers: [], usable: [], slots: 0, reason: 'No graphics controller was found.' };
const open: { dispatcher: Dispatcher; host: Host }[] = [];

afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.dispatcher.stop();
    o.host.close();
  }
});
afterAll(() => removeTempDirs());

/** Resolves once `done()` holds, checked at each host event (every completion emits one). */
function when(host: Host, done: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (done()) return resolve();
    const off = host.onEvent(() => {
      if (done()) {
        off();
        resolve();
      }
    });
  });
}

const stateOf = (host: Host, item: string) => host.work.row('transcribe', item)?.state;

describe('transcript commit and search index', () => {
  it('commit together on success, and not at all when the output record fails after the index was written', async () => {
    const data = tempDir('commit');
    const host = openHost(data);
    addChannel(host, 'pods', 'Podcasts');
    addItem(host, 'pods', 'good', 'A good episode');
    addItem(host, 'pods', 'bad', 'A doomed episode');
    // 'bad' was transcribed before (by another means); its old text is in the index.
    indexTranscript(host, 'bad', recordOf([segmentOf('An old transcript about gardening.', 0)]), { operation: 'transcribe', path: null });
    // Each index write, seen inside its transaction: what 'bad' wrote there must be gone after the rollback.
    // The work row is written after the transcript's recorder (units/unit-settlement.ts): its trigger
    // counts the new text's segments there, then refuses the output, as a full disk or a broken file would.
    const writes: { item: string; foundInside: number }[] = [];
    host.db.function('seen', (item: unknown, found: unknown) => { writes.push({ item: String(item), foundInside: Number(found) }); return null; });
    host.db.exec(`CREATE TRIGGER refuse_bad BEFORE UPDATE OF output_path ON work
                  WHEN new.item_id = 'bad' AND new.operation = 'transcribe' AND new.output_path IS NOT NULL
                  BEGIN
                    SELECT seen(new.item_id, (SELECT count(*) FROM search_segments WHERE item_id = 'bad' AND text LIKE '%volcanoes%'));
                    SELECT RAISE(ABORT, 'the work row refused the output');
                  END`);

    const records = new Map<string, unknown>([
      ['good', recordOf([segmentOf('Welcome to the orchard, where apples grow.', 0.5, 'prof-1')])],
      ['bad', recordOf([segmentOf('A new transcript about volcanoes.', 0.5)])],
    ]);
    const adapter = transcriptTestAdapter(records);
    // Only this transcribe engine runs: the library's other operations have none enabled.
    const settings = new SettingsStore(host.db);
    for (const op of OPERATION_IDS) if (op !== 'transcribe') settings.set(engineSettingKey(op), []);
    const dispatcher = new Dispatcher(host, { dataDir: data, profile: 'production', gpu: noGpu, extraAdapters: [adapter] });
    open.push({ dispatcher, host });
    await dispatcher.start();
    await when(host, () => stateOf(host, 'good') === 'done' && stateOf(host, 'bad') === 'deferred');

    // Success: the file is at its final path, the work row records it, the index holds it.
    const goodFinal = path.join(defaultOutputDir(data, 'pods', 'good', 'transcribe'), 'transcript.json');
    expect(fs.existsSync(goodFinal)).toBe(true);
    expect(host.work.row('transcribe', 'good')?.output_path).toBe(goodFinal);
    expect(host.db.prepare('SELECT operation, output_path, segments FROM search_items WHERE item_id = ?').get('good')).toEqual({ operation: 'transcribe', output_path: goodFinal, segments: 1 });
    expect(searchTranscripts(host.db, 'orchard')).toEqual([
      { item: 'good', channel: 'pods', title: 'A good episode', start: 0.5, end: 3.22, speaker: 'Speaker 1', text: 'Welcome to the orchard, where apples grow.' },
    ]);
    expect(currentTranscript(host, 'good')?.record).toEqual(records.get('good'));

    // Failure: the output was moved back, the work row is unchanged but for the failure, and the
    // index rows written in the rolled-back transaction are gone: the old text is still the one found.
    expect(writes.filter((w) => w.item === 'bad')).toEqual([{ item: 'bad', foundInside: 1 }]);
    const bad = host.work.row('transcribe', 'bad')!;
    expect(bad).toMatchObject({ state: 'deferred', deferral_code: 'OUTPUT_COMMIT_FAILED', output_path: null });
    expect(fs.existsSync(path.join(defaultOutputDir(data, 'pods', 'bad', 'transcribe'), 'transcript.json'))).toBe(false);
    expect(searchTranscripts(host.db, 'volcanoes')).toEqual([]);
    expect(searchTranscripts(host.db, 'gardening').map((h) => h.item)).toEqual(['bad']);
    expect(host.db.prepare('SELECT output_path FROM search_items WHERE item_id = ?').pluck().get('bad')).toBeNull();

    // The refusal lifted, a retry commits both at once.
    host.db.exec('DROP TRIGGER refuse_bad');
    expect(retryWork(host.uow, host.work, { item: 'bad', operation: 'transcribe' }, host.now())).toBe(1);
    dispatcher.wake();
    await when(host, () => stateOf(host, 'bad') === 'done');
    expect(searchTranscripts(host.db, 'volcanoes').map((h) => h.item)).toEqual(['bad']);
    expect(searchTranscripts(host.db, 'gardening')).toEqual([]);
  }, 60_000);
});
