// A running unit's progress message in the reader's language (docs/i18n.md "Progress messages"): a
// keyed message is said from its key's message and parameters as a run log line is (log-line.ts); a
// plain message from an engine, or a key this window does not know, is the engine's English text.
import { en } from './en';
import { sayKeyed, type KeyedText, type LineWords, type SaidLine } from './log-line';

export function sayProgress(message: KeyedText, w: LineWords): SaidLine {
  return sayKeyed(message, 'progressMessages', en.progressMessages, w);
}
