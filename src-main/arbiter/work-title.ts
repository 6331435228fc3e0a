// What a run log line calls a piece of work: the item's title (a channel's, for channel work), as a
// person reads it, never its id alone (issue 20 item 8); the id only when neither is known.
import type { Host } from '../host/host';

export function workTitle(host: Pick<Host, 'library'>, id: string): string {
  return host.library.item(id)?.title ?? host.library.channel(id)?.title ?? id;
}
