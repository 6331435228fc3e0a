// Light and dark themes: the OS decides unless the reader chose one (remembered per browser). The
// choice is a data attribute on <html>; the colours are CSS variables in style.css.
import { ref, watch } from 'vue';

export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];
const KEY = 'backlot.theme';

function stored(): Theme {
  try {
    const v = window.localStorage.getItem(KEY);
    return (THEMES as readonly string[]).includes(v ?? '') ? (v as Theme) : 'system';
  } catch {
    return 'system';
  }
}

export const theme = ref<Theme>(stored());

export function applyTheme(value: Theme): void {
  const root = document.documentElement;
  if (value === 'system') delete root.dataset.theme;
  else root.dataset.theme = value;
}

watch(theme, (value) => {
  applyTheme(value);
  try {
    window.localStorage.setItem(KEY, value);
  } catch {
    // A browser without storage keeps the choice for this page only.
  }
}, { immediate: true });
