// The Rules page: the stored policy tree, the draft being edited, the host's own validation of that
// draft on every change (the node and field it names), saving through tree.set, and the what-if
// preview of the draft beside the stored tree.
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
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

  function edit(next: DraftNode): void {
    draft.value = next;
  }

  function revert(): void {
    draft.value = stored.value ? clone(stored.value) : null;
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

  async function runPreview(): Promise<void> {
    if (!draft.value || problem.value) return;
    previewing.value = true;
    try {
      preview.value = await client.call('preview.run', { tree: draft.value });
      previewError.value = null;
    } catch (e) {
      previewError.value = asApiError(e);
    } finally {
      previewing.value = false;
    }
  }

  return { version, stored, draft, error, saving, previewing, preview, previewError, problem, dirty, load, edit, revert, save, runPreview };
});
