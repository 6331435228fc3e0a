// How a catalog model is said in the window: what it is good for in the reader's language where the
// catalog's model is known to the window (else the host's English, marked so), and its languages.
import type { ModelEntryDto } from '../../../src-shared/api/models-contract';
import { en } from '../i18n/en';

type T = (key: string, named?: Record<string, unknown>) => string;

/** vue-i18n paths split on dots, so `whisper-base.en` is kept as `whisper-base_en`. */
function goodForKey(name: string): string {
  return name.replace(/\./g, '_');
}

export function goodForOf(m: ModelEntryDto, t: T): { text: string; lang: 'en' | undefined } {
  const key = goodForKey(m.name);
  if (Object.prototype.hasOwnProperty.call(en.models.goodFor, key)) return { text: t(`models.goodFor.${key}`), lang: undefined };
  return { text: m.goodFor, lang: 'en' };
}

export function languagesOf(m: ModelEntryDto, t: T): string {
  return m.languages.map((l) => (Object.prototype.hasOwnProperty.call(en.models.languages, l) ? t(`models.languages.${l}`) : l)).join(', ');
}
