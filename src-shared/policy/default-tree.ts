// The policy tree a new user starts with: keep the library listed, handle new uploads first, and
// work through the backlog only when nothing else wants the lane (DESIGN §3).
import type { PolicyNode } from './tree';

const DAY_S = 86_400;

/** A fresh tree on every call: callers store and edit it, so no two share objects. */
export function defaultPolicyTree(): PolicyNode {
  return {
    id: 'root',
    mode: 'strict',
    children: [
      // Listing comes first: without it nothing new is ever found.
      { id: 'sync', match: { operation: 'sync' } },
      // Strict order puts this above the backlog, so a new upload is next on its lane.
      { id: 'new-uploads', match: { publishedWithinS: 7 * DAY_S }, order: 'newest' },
      {
        id: 'backlog',
        // Passive: the backlog runs only when nothing ahead of it has work for (or is running on)
        // the lane, so new uploads never queue behind months of old items.
        posture: 'passive',
        mode: 'weighted-fair',
        children: [
          { id: 'backlog-downloads', match: { operation: 'download' }, weight: 2, order: 'newest' },
          { id: 'backlog-transcription', match: { operation: 'transcribe' }, weight: 2, order: 'newest' },
          // Cheapest first: short digests clear quickly and each one is immediately useful.
          { id: 'backlog-digests', match: { operation: 'digest' }, weight: 1, order: 'cheapest' },
          // The catch-all: no operation match, so it takes the rest (diarize, the attributions)
          // and could also take download, transcribe or digest work. It is declared LAST so it
          // loses every weighted-fair tie, and with weights 2,2,1 against its 1 the named leaves
          // above get 5 of every 6 backlog picks when all have work on the lane.
          { id: 'backlog-other', weight: 1, order: 'oldest' },
        ],
      },
    ],
  };
}
