// Where a notice's click (or a menu's Go item) takes the window, as the hash of the window's URL:
// `#/runs/12`, `#/lanes/gpu`, `#/item/<id>`, `#/settings/<key>`, `#/library/<channel>`. The desktop
// shell sends a NoticeTarget to the window; the window's router reads the hash.
import type { NoticeTarget } from '../notices/notice';

export function targetHash(target: NoticeTarget): string {
  const part = (value: string | number | undefined) => (value === undefined ? '' : `/${encodeURIComponent(String(value))}`);
  switch (target.view) {
    case 'runs': return `#/runs${part(target.run)}`;
    case 'lanes': return `#/lanes${part(target.lane)}`;
    case 'item': return `#/item${part(target.item)}`;
    case 'settings': return `#/settings${part(target.key)}`;
    case 'library': return `#/library${part(target.channel)}`;
  }
}
