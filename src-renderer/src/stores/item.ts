// One item as its page shows it: its facts, each operation's state with the host's explanation and
// its last run, and a link to play its media. Re-read when its work moves.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { ApiErrorDto, ApiResponse } from '../../../src-shared/api/contract';
import { asApiError, useClient } from './client';
import { coalesced } from '../../../src-shared/views/coalesce';
import { UNREADABLE_MEDIA_CODES } from '../../../src-shared/reasons/codes';

export type ItemDetail = ApiResponse<'items.get'>;
export type MediaLink = ApiResponse<'media.url'>;
export type TranscriptView = ApiResponse<'transcript.get'>;
export type ItemDigest = ApiResponse<'digest.get'>;

/** Transcribe's output is the transcript; attribute-words' the same with its speakers (transcript.get picks). */
const hasTranscript = (d: ItemDetail) => d.operations.some((o) => (o.operation === 'transcribe' || o.operation === 'attribute-words') && (o.state === 'done' || o.state === 'stale'));
const hasDigest = (d: ItemDetail) => d.operations.some((o) => o.operation === 'digest' && (o.state === 'done' || o.state === 'stale'));

export const useItem = defineStore('item', () => {
  const client = useClient();
  const id = ref<string | null>(null);
  const detail = ref<ItemDetail | null>(null);
  const media = ref<MediaLink | null>(null);
  const error = ref<ApiErrorDto | null>(null);
  const mediaError = ref<ApiErrorDto | null>(null);
  const transcript = ref<TranscriptView | null>(null);
  const digest = ref<ItemDigest | null>(null);
  /** The host's refusal when there is no transcript or digest to read (its state and reason). */
  const transcriptError = ref<ApiErrorDto | null>(null);
  const digestError = ref<ApiErrorDto | null>(null);
  /** Why the media cannot be played (a folder's empty or unreadable file): no player is offered. */
  const unplayable = ref<ItemDetail['operations'][number]['reason'] | null>(null);
  /** What the outputs were read for: a new output (or a rename) is read again, an unchanged one not. */
  let outputsKey = '';

  const load = coalesced(async () => {
    const wanted = id.value;
    if (!wanted) return;
    try {
      const answer = await client.call('items.get', { item: wanted });
      if (wanted !== id.value) return;
      detail.value = answer;
      error.value = null;
      unplayable.value = answer.operations.map((o) => o.reason).find((r) => (UNREADABLE_MEDIA_CODES as readonly string[]).includes(r.code)) ?? null;
      await loadOutputs(wanted, answer);
      // A link is asked for once per visit (it stays good for hours), and again once the file exists.
      if (answer.item.media === 'local' && media.value === null && unplayable.value === null) {
        try {
          media.value = await client.call('media.url', { item: wanted });
          mediaError.value = null;
        } catch (e) {
          mediaError.value = asApiError(e);
        }
      }
    } catch (e) {
      if (wanted === id.value) error.value = asApiError(e);
    }
  });

  async function loadOutputs(item: string, d: ItemDetail, force = false): Promise<void> {
    const key = d.operations.map((o) => `${o.operation}:${o.state}:${o.lastRun?.id ?? ''}`).join(',');
    if (!force && key === outputsKey) return;
    outputsKey = key;
    const [t, g] = await Promise.allSettled([
      hasTranscript(d) ? client.call('transcript.get', { item }) : Promise.resolve(null),
      hasDigest(d) ? client.call('digest.get', { item }) : Promise.resolve(null),
    ]);
    if (item !== id.value) return;
    transcript.value = t.status === 'fulfilled' ? t.value : null;
    transcriptError.value = t.status === 'rejected' ? asApiError(t.reason) : null;
    digest.value = g.status === 'fulfilled' ? g.value : null;
    digestError.value = g.status === 'rejected' ? asApiError(g.reason) : null;
  }

  function open(item: string): Promise<void> {
    if (id.value !== item) {
      id.value = item;
      detail.value = null;
      media.value = null;
      unplayable.value = null;
      error.value = null;
      mediaError.value = null;
      transcript.value = null;
      digest.value = null;
      transcriptError.value = null;
      digestError.value = null;
      outputsKey = '';
    }
    return load();
  }

  /** Speaker names may have changed elsewhere (a rename): read the outputs again. */
  async function reloadOutputs(): Promise<void> {
    if (id.value && detail.value) await loadOutputs(id.value, detail.value, true);
  }

  /**
   * Listens while the page shows the item, and starts by reading it again with its outputs: a
   * rename or a finished run heard by no one while another view was on screen is read now
   * (docs/window.md "Fresh views").
   */
  function follow(): () => void {
    const stop = client.onEvent((event) => {
      if (id.value && (event === 'snapshot-changed' || event === 'runs-changed')) void load();
      // A speaker renamed, merged or forgotten (here or from the CLI): the transcript's names moved.
      if (id.value && event === 'speakers-changed') void reloadOutputs();
    });
    if (id.value) {
      outputsKey = '';
      void load();
    }
    return stop;
  }

  return { id, detail, media, unplayable, error, mediaError, transcript, digest, transcriptError, digestError, open, load, reloadOutputs, follow };
});
