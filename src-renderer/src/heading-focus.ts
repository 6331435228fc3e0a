// Focus goes to a view's heading when the view opens (after a navigation, not on the first load),
// even when the heading only appears once the view's data arrives: the router arms it, and the
// heading takes focus when it is mounted (the `v-view-heading` directive on every view's h1).
import type { Directive } from 'vue';

let armed = false;

/** A navigation happened: the next view heading to appear takes focus. */
export function armHeadingFocus(): void {
  armed = true;
  // A view whose heading is already on the page (it did not remount) takes it now.
  queueMicrotask(() => {
    const h = document.querySelector<HTMLElement>('main h1[data-view-heading]');
    if (armed && h) take(h);
  });
}

function take(h: HTMLElement): void {
  armed = false;
  // A view that put focus somewhere itself (Search's field, a linked setting) keeps it there.
  const active = document.activeElement;
  const main = h.closest('main');
  if (active && main && main.contains(active) && active !== main) return;
  h.focus();
}

export const vViewHeading: Directive<HTMLElement> = {
  mounted(el) {
    el.setAttribute('tabindex', '-1');
    el.dataset.viewHeading = '';
    if (armed) take(el);
  },
};
