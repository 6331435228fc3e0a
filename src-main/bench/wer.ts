// Word error rate, the one scorer the transcription figures use (docs/benchmarks.md): word-level
// Levenshtein distance (substitutions + deletions + insertions) over the reference's word count,
// after lower-casing and dropping punctuation, so "Mr." and "mr" compare equal across engines.
export function normalizeWords(text: string): string[] {
  return text.toLowerCase().replace(/[^\p{L}\p{N}'\s-]/gu, ' ').replace(/(^|\s)[-']+|[-']+(?=\s|$)/g, ' ').split(/[\s-]+/).filter((w) => w !== '');
}

export function editDistance(ref: readonly string[], hyp: readonly string[]): number {
  let prev = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const cur = [i];
    for (let j = 1; j <= hyp.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[hyp.length];
}

export interface WerScore { errors: number; words: number; wer: number }

export function wordErrorRate(pairs: readonly { reference: string; hypothesis: string }[]): WerScore {
  let errors = 0;
  let words = 0;
  for (const p of pairs) {
    const ref = normalizeWords(p.reference);
    errors += editDistance(ref, normalizeWords(p.hypothesis));
    words += ref.length;
  }
  return { errors, words, wer: words === 0 ? 0 : errors / words };
}
