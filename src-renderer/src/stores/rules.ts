// The Rules page: the stored policy tree, the draft being edited, the host's own validation of that
// draft on every change (the node and field it names), saving through tree.set, what each leaf of
// the draft selects in the library now (tree.matches, re-read when the library changes), and the
// what-if preview of the draft beside the stored tree.
import { defineStore } from 'pinia';
import { computed, ref, shallowRef, watch } from 'vue';
import type { ApiErrorDto } from '../../../src-shared/api/contract';
import type { PreviewResultDto } from '../../../src-shared/api/window-contract';
import { validatePolicyTree, type PolicyErrorParams } from '../../../src-shared/policy/validate';
import { LANE_KEYS } from '../../../src-shared/catalog/lanes';
import { isBacklotError } from '../../../src-shared/errors';
import { asApiError, useClient } from './client';
import { clone, locate, type DraftNode } from '../rules/tree-edit';

export interface TreeProblem {
  message: string;
  /** Where in the draft: the node's child-index path and the field, for marking it. */
  path: number[];
  field: string;
  node: string | null;
}

export function checkTree(draft: DraftNode): TreeProblem | null {
  try {
    validatePolicyTree(draft, { lanes: LANE_KEYS });
    return null;
  } catch (e) {
    if (!isBacklotError(e)) throw e;
    const params = e.params as Partial<PolicyErrorParams>;
    const where = locate(typeof params.path === 'string' ? params.path : 'tree');
    return { message: e.message, path: where.path, field: where.field, node: params.node ?? null };
  }
}

/** How often a running preview's progress is read. */
const PREVIEW_PROGRESS_MS = 250;

export const useRules = defineStore('rules', () => {
  const client = useClient();
  const version = ref<number | null>(null);
  const stored = shallowRef<DraftNode | null>(null);
  const draft = shallowRef<DraftNode | null>(null);
  const error = ref<ApiErrorDto | null>(null);
  const saving = ref(false);
  const previewing = ref(false);
  const preview = shallowRef<PreviewResultDto | null>(null);
  const previewError = ref<ApiErrorDto | null>(null);
  /** How far the running preview is (0..1), read from preview.progress while it runs; null otherwise. */
  const previewProgress = ref<number | null>(null);
  /** The draft the shown answer was made for: after an edit it stays on screen, marked as for an earlier draft. */
  const previewedDraft = ref<string | null>(null);
  const previewOutdated = computed(() => preview.value !== null && previewedDraft.value !== JSON.stringify(draft.value));

  /** Per leaf id: what its match selects now; null while the draft is invalid or being counted. */
  const matches = shallowRef<Map<string, { unit: 'items' | 'channels'; count: number }> | null>(null);
  let matchesAsked = 0;

  const problem = computed(() => (draft.value ? checkTree(draft.value) : null));
  const dirty = computed(() => draft.value !== null && JSON.stringify(draft.value) !== JSON.stringify(stored.value));

  async function load(): Promise<void> {
    try {
      const answer = await client.call('tree.get', {});
      version.value = answer.version;
      stored.value = answer.tree as DraftNode;
      if (!dirty.value) draft.value = clone(answer.tree as DraftNode);
      error.value = null;
    } catch (e) {
      error.value = asApiError(e);
    }
  }

  /**
   * A preview answers for the draft it ran on. Once the draft changes the answer stays on screen
   * (a large library takes seconds to simulate again) but is marked as for an earlier draft.
   */
  function forgetPreview(): void {
    previewError.value = null;
  }

  function edit(next: DraftNode): void {
    draft.value = next;
    forgetPreview();
  }

  function revert(): void {
    draft.value = stored.value ? clone(stored.value) : null;
    forgetPreview();
  }

  async function save(): Promise<number | null> {
    if (!draft.value || problem.value) return null;
    saving.value = true;
    try {
      const answer = await client.call('tree.set', { tree: draft.value });
      version.value = answer.version;
      stored.value = answer.tree as DraftNode;
      draft.value = clone(answer.tree as DraftNode);
      error.value = null;
      return answer.version;
    } catch (e) {
      error.value = asApiError(e);
      return null;
    } finally {
      saving.value = false;
    }
  }

  /** Reads the running preview's progress until it answers; the previous answer stays shown meanwhile. */
  function followPreviewProgress(): () => void {
    let stopped = false;
    const timer = setInterval(() => {
      client.call('preview.progress', {}).then((p) => {
        if (!stopped && p.ratio !== null) previewProgress.value = p.ratio;
      }, () => { /* A missed reading leaves the bar where it was. */ });
    }, PREVIEW_PROGRESS_MS);
    return () => { stopped = true; clearInterval(timer); };
  }

  async function runPreview(): Promise<void> {
    if (!draft.value || problem.value) return;
    const tree = draft.value;
    previewing.value = true;
    previewProgress.value = 0;
    const stop = followPreviewProgress();
    try {
      preview.value = await client.call('preview.run', { tree });
      previewedDraft.value = JSON.stringify(tree);
      previewError.value = null;
    } catch (e) {
      previewError.value = asApiError(e);
    } finally {
      stop();
      previewing.value = false;
      previewProgress.value = null;
    }
  }

  /** Counts what each leaf of the draft selects; an answer for an older draft is dropped. */
  async function countMatches(): Promise<void> {
    const asked = ++matchesAsked;
    const tree = draft.value;
    if (!tree || problem.value) { matches.value = null; return; }
    try {
      const answer = await client.call('tree.matches', { tree });
      if (asked === matchesAsked) matches.value = new Map(answer.leaves.map((l) => [l.node, { unit: l.unit, count: l.count }]));
    } catch {
      // The counts are advice; the validator's own sentence already covers a tree the host refuses.
      if (asked === matchesAsked) matches.value = null;
    }
  }
  watch(draft, () => void countMatches());

  /** While the Rules page is shown: a library change (items added, a channel removed) re-counts. */
  function follow(): () => void {
    return client.onEvent((event) => { if (event === 'snapshot-changed') void countMatches(); });
  }

  return { version, stored, draft, error, saving, previewing, preview, previewError, previewProgress, previewOutdated, problem, dirty, matches, load, edit, revert, save, runPreview, countMatches, follow };
});
