// Loads a generated corpus into a host through the repository and the work store, so every
// (item, operation) state is the one the app itself would derive; only the batching is special
// (one transaction for the whole library).
import type { Host } from '../host/host';
import type { GeneratedChannel } from '../../src-shared/corpus/generate';
import type { ChannelKind } from '../library/repository';

function kindOf(platform: string): ChannelKind {
  return platform === 'folder' ? 'folder' : platform === 'podcast' ? 'feed' : 'platform';
}

/** `now` is the corpus's time 0: publish dates lie before it and every channel synced at it. */
export function loadCorpus(host: Host, corpus: readonly GeneratedChannel[], now = 0): number {
  let items = 0;
  host.transaction(() => {
    for (const ch of corpus) {
      host.library.addChannel({
        id: ch.id, kind: kindOf(ch.platform), platform: ch.platform, title: ch.title,
        source: `generated:${ch.id}`, syncIntervalS: 3600, lastSyncAt: now,
      }, now);
      for (const it of ch.items) {
        host.library.addItem({
          id: it.id, channel_id: ch.id, external_id: it.id, title: it.id, published_at: it.publishedAt,
          duration_s: it.durationS, fingerprint: `gen:${it.id}`,
          // A generated episode has media to download, as a real feed's enclosure (docs/feeds.md "Items without media").
          url: `https://generated.invalid/${ch.id}/${it.id}.mp3`,
          media_state: it.have.includes('download') ? 'local' : 'remote',
        }, now, it.have);
        items++;
      }
    }
  });
  return items;
}
