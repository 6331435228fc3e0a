// pocketsphinx's raw segmentation into Backlot's words: fillers (<s>, </s>, <sil>, [NOISE], ++UH++)
// are not words, and "was(2)" is the dictionary's second pronunciation of "was".
import type { RecognizedWord } from '../transcribe-kit/recognizer';

export function sphinxWords(raw: readonly (readonly [string, number, number, number])[], offsetS: number): RecognizedWord[] {
  const words: RecognizedWord[] = [];
  for (const [token, start, end, p] of raw) {
    if (/^(<.*>|\[.*\]|\+\+.*\+\+)$/.test(token)) continue;
    const w = token.replace(/\(\d+\)$/, '');
    if (w === '') continue;
    words.push({ w, start: offsetS + start, end: offsetS + Math.max(start, end), p: Number.isFinite(p) ? Math.min(1, Math.max(0, p)) : 0 });
  }
  return words;
}
