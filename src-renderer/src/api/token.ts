// The headless shell's token arrives once in the page URL (?token=...). Keep it for this tab and
// take it out of the address bar, so it is not left in history, bookmarks or a shared screen.
const KEY = 'backlot.token';

export function takeToken(win: Window): string | null {
  const url = new URL(win.location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    win.sessionStorage.setItem(KEY, fromUrl);
    url.searchParams.delete('token');
    win.history.replaceState(win.history.state, '', url.pathname + url.search + url.hash);
    return fromUrl;
  }
  return win.sessionStorage.getItem(KEY);
}
