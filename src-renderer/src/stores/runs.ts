// Run history as the Runs page reads it: the last three runs of every job (their dots), the history
// filtered by operation, channel, outcome and trigger a page at a time, and one run with its log.
import { defineStore } from 'pinia';
import { reactive, ref } from 'vue';
import type { ApiErrorDto, ApiRequest, ApiResponse, RunDto } from '../../../src-shared/api/contract';
import type { OperationId } from '../../../src-shared/catalog/operations';
import type { RunOutcome, RunTrigger } from '../../../src-shared/runs/trigger';
import { asApiError, useClient } from './client';
import { coalesced } from '../../../src-shared/views/coalesce';

export const RUNS_PAGE = 50;
export type LogLine = ApiResponse<'runs.logs'>['lines'][number];
export type LogLevel = LogLine['level'];

export interface RunFilters {
  operation: OperationId | null;
  channel: string | null;
  outcome: RunOutcome | null;
  trigger: RunTrigger | null;
}

export const useRuns = defineStore('runs', () => {
  const client = useClient();
  const jobs = ref<ApiResponse<'runs.lastPerJob'>['jobs']>([]);
  const runs = ref<RunDto[]>([]);
  const more = ref(false);
  const loaded = ref(false);
  const error = ref<ApiErrorDto | null>(null);
  const filters = reactive<RunFilters>({ operation: null, channel: null, outcome: null, trigger: null });

  function request(before?: number): ApiRequest<'runs.list'> {
    return {
      limit: RUNS_PAGE,
      ...(filters.operation ? { operation: filters.operation } : {}),
      ...(filters.channel ? { channel: filters.channel } : {}),
      ...(filters.outcome ? { outcome: filters.outcome } : {}),
      ...(filters.trigger ? { trigger: filters.trigger } : {}),
      ...(before ? { before } : {}),
    };
  }

  const refresh = coalesced(async () => {
    try {
      // The history keeps as many rows as the reader has paged through.
      const shown = Math.max(RUNS_PAGE, runs.value.length);
      const [perJob, list] = await Promise.all([client.call('runs.lastPerJob', {}), client.call('runs.list', { ...request(), limit: Math.min(1000, shown) })]);
      jobs.value = perJob.jobs;
      runs.value = list.runs;
      more.value = list.runs.length >= shown;
      error.value = null;
    } catch (e) {
      error.value = asApiError(e);
    } finally {
      loaded.value = true;
    }
  });

  async function loadMore(): Promise<void> {
    const last = runs.value[runs.value.length - 1];
    if (!last) return;
    try {
      const list = await client.call('runs.list', request(last.id));
      runs.value = [...runs.value, ...list.runs];
      more.value = list.runs.length >= RUNS_PAGE;
    } catch (e) {
      error.value = asApiError(e);
    }
  }

  function follow(): () => void {
    return client.onEvent((event) => {
      if (event === 'runs-changed') void refresh();
    });
  }

  return { jobs, runs, more, loaded, error, filters, refresh, loadMore, follow };
});

/**
 * One run and its log, filtered by level on the host; `text` filters what the window says, so the
 * view applies it (RunDetail.vue, docs/i18n.md "Filtering the log by text").
 */
export const useRunLog = defineStore('run-log', () => {
  const client = useClient();
  const id = ref<number | null>(null);
  const lines = ref<LogLine[]>([]);
  const level = ref<LogLevel>('debug');
  const text = ref('');
  const error = ref<ApiErrorDto | null>(null);
  const loading = ref(false);
  let ticket = 0;

  async function load(): Promise<void> {
    if (id.value === null) return;
    const mine = ++ticket;
    loading.value = true;
    try {
      const answer = await client.call('runs.logs', { run: id.value, level: level.value, limit: 5000 });
      if (mine !== ticket) return;
      lines.value = answer.lines;
      error.value = null;
    } catch (e) {
      if (mine === ticket) error.value = asApiError(e);
    } finally {
      if (mine === ticket) loading.value = false;
    }
  }

  function open(run: number): Promise<void> {
    if (id.value !== run) {
      id.value = run;
      lines.value = [];
    }
    return load();
  }

  return { id, lines, level, text, error, loading, open, load };
});
