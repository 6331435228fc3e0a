// The desktop shell's "show this view" (a clicked notification or menu item) becomes the window's
// URL hash (src-shared/api/navigation.ts), which the window's views follow.
import type { BacklotBridge } from '../../../src-shared/api/bridge';
import { targetHash } from '../../../src-shared/api/navigation';

export function followShellNavigation(win: Window & { backlot?: BacklotBridge }): () => void {
  return win.backlot?.onNavigate?.((target) => { win.location.hash = targetHash(target); }) ?? (() => undefined);
}
