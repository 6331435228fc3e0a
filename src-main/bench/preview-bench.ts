// The what-if preview on a whole generated library (docs/benchmarks.md "What-if preview"): the
// library the snapshot and window benchmarks build (78,000 items by default), the preview's
// scenario built from it with every operation bound, and the stored (default) tree against a
// changed one, through the same worker the host runs the preview in.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Host } from '../host/host';
import { ensureGeneratedLibrary } from './generated-library';
import { previewScenario, type LiveState } from '../sim/preview';
import { runPreview } from '../sim/preview-runner';
import { defaultBindings, DEFAULT_LANES } from '../arbiter/lanes';
import { defaultSettings } from '../../src-shared/settings/settings-schema';
import { defaultPolicyTree } from '../../src-shared/policy/default-tree';
import type { PolicyNode } from '../../src-shared/policy/tree';

/** The library's time 0 (publish dates lie before it). */
const NOW = 1_000_000_000;

export interface PreviewBench {
  items: number;
  channels: number;
  simulatedItems: number;
  scale: number;
  /** Building the library (generate + load), or 0 when a kept one was reused. */
  loadMs: number;
  /** Reading the library into the preview's scenario. */
  scenarioMs: number;
  /** Both simulations and their answers, as the window waits for them. */
  runMs: number;
  /** scenarioMs + runMs: what a person waits for. */
  totalMs: number;
  /** The process's CPU time over the same span, every thread (the two workers) included. */
  cpuMs: number;
  picks: { current: number; edited: number };
  endS: { current: number; edited: number };
}

/** The stored tree's change a person might try: the backlog round-robin, its transcriptions oldest first. */
export function changedTree(): PolicyNode {
  const tree = defaultPolicyTree();
  const backlog = tree.children!.find((c) => c.id === 'backlog')!;
  backlog.mode = 'round-robin';
  for (const c of backlog.children!) if (c.id === 'backlog-transcription') c.order = 'oldest';
  return tree;
}

export async function runPreviewBench(o: { items: number; channels: number; seed: number; keepDir?: string; maxItems?: number }): Promise<PreviewBench> {
  const dir = o.keepDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-preview-bench-'));
  const file = path.join(dir, `preview-${o.seed}-${o.channels}-${o.items}.sqlite`);
  try {
    const loadMs = Math.round(ensureGeneratedLibrary(file, { seed: o.seed, channels: o.channels, items: o.items, now: NOW }) ?? 0);
    const host = new Host({ databaseFile: file, durable: false });
    try {
      const live: LiveState = {
        now: NOW, lanes: Object.values(DEFAULT_LANES), paused: [], bindings: defaultBindings(),
        settings: defaultSettings(), freeBytes: null, spentUsd: 0,
      };
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const built = previewScenario(host.db, live, o.maxItems);
      const t1 = performance.now();
      const result = await runPreview(built, defaultPolicyTree(), changedTree());
      const t2 = performance.now();
      const cpu = process.cpuUsage(cpu0);
      return {
        cpuMs: Math.round((cpu.user + cpu.system) / 1000),
        items: result.library.items, channels: result.library.channels, simulatedItems: result.library.simulatedItems, scale: result.library.scale,
        loadMs, scenarioMs: Math.round(t1 - t0), runMs: Math.round(t2 - t1), totalMs: Math.round(t2 - t0),
        picks: { current: result.current.picks, edited: result.edited.picks },
        endS: { current: result.current.endS, edited: result.edited.endS },
      };
    } finally {
      host.close();
    }
  } finally {
    if (!o.keepDir) fs.rmSync(dir, { recursive: true, force: true });
  }
}
