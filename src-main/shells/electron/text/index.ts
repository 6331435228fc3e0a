// The desktop shell's words by language: the one entry point the shell reads them through.
import type { DesktopLocale, DesktopText } from './desktop-text';
import { EN } from './en';
import { HU } from './hu';

export const DESKTOP_TEXT: Record<DesktopLocale, DesktopText> = { en: EN, hu: HU };

export { DESKTOP_LOCALES, formattersFor, pickLocale } from './desktop-text';
export type { DesktopLocale, DesktopText, Formatters, Shown } from './desktop-text';
