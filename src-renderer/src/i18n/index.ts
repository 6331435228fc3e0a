// The window's languages (English and Hungarian) through vue-i18n, and the one way every view turns
// a reason code into a sentence, a date or a number in the reader's language (docs/window.md "Languages").
import { computed, type InjectionKey } from 'vue';
import { createI18n, useI18n } from 'vue-i18n';
import { en, type Messages } from './en';
import { hu } from './hu';
import { REASONS_EN } from './reasons-en';
import { REASONS_HU } from './reasons-hu';
import { formattersFor, type Formatters } from './format';
import type { Sentence, SentenceContext } from './sentence-kit';
import { sayLogLine, type LineWords } from './log-line';
import { sayProgress } from './progress-line';
import { isReasonCode, type ReasonCode } from '../../../src-shared/reasons/codes';

export const LOCALES = ['en', 'hu'] as const;
export type Locale = (typeof LOCALES)[number];

const LOCALE_KEY = 'backlot.locale';

/** Each language's sentences, typed against the one list of reason codes. */
const REASONS: Readonly<Record<Locale, Readonly<Record<ReasonCode, Sentence>>>> = { en: REASONS_EN, hu: REASONS_HU };

function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/** The reader's choice if they made one, else the browser's first language we speak. */
export function initialLocale(storage: Pick<Storage, 'getItem'> | null, languages: readonly string[]): Locale {
  const saved = storage?.getItem(LOCALE_KEY);
  if (isLocale(saved)) return saved;
  for (const l of languages) {
    const base = l.toLowerCase().split('-')[0];
    if (isLocale(base)) return base;
  }
  return 'en';
}

function safeStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

export function createWindowI18n(locale: Locale = initialLocale(safeStorage(), navigator.languages ?? [navigator.language])) {
  const i18n = createI18n<[Messages], Locale, false>({
    legacy: false,
    locale,
    fallbackLocale: 'en',
    messages: { en, hu },
    missingWarn: false,
    fallbackWarn: false,
  });
  document.documentElement.lang = locale;
  return i18n;
}

/** Switches the language everywhere and remembers it for the next visit. */
export function setLocale(i18n: ReturnType<typeof createWindowI18n>, locale: Locale): void {
  i18n.global.locale.value = locale;
  document.documentElement.lang = locale;
  safeStorage()?.setItem(LOCALE_KEY, locale);
}

export interface DescribedReason {
  code: string;
  sentence: string;
  /** False for a code the window does not know: the code and its parameters are shown as they are. */
  known: boolean;
}

/** How a secondary reason (a lane that cannot run the work at all) is introduced after the main one. */
const ALSO: Readonly<Record<Locale, string>> = { en: 'Also:', hu: 'Továbbá:' };

function secondary(params: Record<string, unknown> | undefined): { code: string; params?: Record<string, unknown> }[] {
  const also = params?.also;
  if (!Array.isArray(also)) return [];
  return also.filter((r): r is { code: string; params?: Record<string, unknown> } => typeof r === 'object' && r !== null && typeof (r as { code?: unknown }).code === 'string');
}

/**
 * A reason as a sentence in `locale`; an unknown code raw with its parameters, never hidden. The
 * lanes that cannot run the work at all (`also`, from explain) follow the main reason, secondary.
 */
export function describeReason(reason: { code: string; params?: Record<string, unknown> }, locale: Locale, context: SentenceContext): DescribedReason {
  if (isReasonCode(reason.code)) {
    const own: Record<string, unknown> = { ...reason.params };
    delete own.also;
    const main = REASONS[locale][reason.code](own, context);
    const more = secondary(reason.params).map((r) => describeReason(r, locale, context).sentence);
    return { code: reason.code, sentence: more.length === 0 ? main : `${main} ${ALSO[locale]} ${more.join(' ')}`, known: true };
  }
  const params = reason.params && Object.keys(reason.params).length > 0 ? ` ${JSON.stringify(reason.params)}` : '';
  return { code: reason.code, sentence: `${reason.code}${params}`, known: false };
}

/** The host's name for a person nobody named yet (src-main/speakers/profiles/profile-store.ts anonymousName). */
export const ANONYMOUS_SPEAKER = /^Speaker (\d+)$/;

/** What a view needs to speak the reader's language: t, the formatters, names and reason sentences. */
export function useWords() {
  const { t, locale } = useI18n<{ message: Messages }, Locale>();
  const current = computed<Locale>(() => (isLocale(locale.value) ? locale.value : 'en'));
  const f = computed<Formatters>(() => formattersFor(current.value));
  const has = (group: Record<string, string>, key: string) => Object.prototype.hasOwnProperty.call(group, key);
  const op = (id: string) => (has(en.operations, id) ? t(`operations.${id}`) : id);
  // A pool lane is its base lane's name with its pool: `GPU@studio` (docs/pools.md).
  const lane = (id: string): string => {
    const at = id.indexOf('@');
    if (at > 0) return `${lane(id.slice(0, at))}@${id.slice(at + 1)}`;
    return has(en.lanes, id) ? t(`lanes.${id}`) : id;
  };
  const state = (id: string) => (has(en.states, id) ? t(`states.${id}`) : id);
  const outcome = (id: string) => (has(en.outcomes, id) ? t(`outcomes.${id}`) : id);
  const reason = (r: { code: string; params?: Record<string, unknown> }) => describeReason(r, current.value, { f: f.value, op, lane });
  /** A speaker's name as shown: the host's default "Speaker N" in the reader's language, a given name as it is. */
  const who = (name: string) => {
    const m = ANONYMOUS_SPEAKER.exec(name);
    return m ? t('speakers.anonymous', { number: f.value.count(Number(m[1])) }) : name;
  };
  /** A run log line in this language; the stored English text when it has no key we know (log-line.ts). */
  const lineWords = (): LineWords => ({
    t: (key, named, plural) => (plural === undefined ? t(key, named ?? {}) : t(key, named ?? {}, plural)),
    f: f.value, op, lane,
    reason: (code) => (isReasonCode(code) ? reason({ code }).sentence : undefined),
  });
  const logLine = (line: Parameters<typeof sayLogLine>[0]) => sayLogLine(line, lineWords());
  /** A running unit's progress message in this language; the engine's English text when it has no key we know (progress-line.ts). */
  const progressLine = (message: Parameters<typeof sayProgress>[0]) => sayProgress(message, lineWords());
  return { t, locale: current, f, op, lane, state, outcome, reason, who, logLine, progressLine };
}

/** The app's i18n instance, for the language switch (provided by main.ts). */
export const I18N_KEY: InjectionKey<ReturnType<typeof createWindowI18n>> = Symbol('backlot-i18n');
