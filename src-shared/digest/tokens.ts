// Token counts and money without the model's tokenizer (docs/digests.md "Money"). Two estimates:
// the typical one (about four characters a token, what English text costs) for spend recorded from an
// answer that carried no usage, and an upper bound (three UTF-8 bytes a token) for what a request may
// cost at most, which is what the spend cap is checked against before anything is sent.

/** Chat-format overhead per message (role and separators), as OpenAI documents for its chat models. */
export const TOKENS_PER_MESSAGE = 4;

export function typicalTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function utf8Bytes(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) { n += 4; i++; }
    else n += 3;
  }
  return n;
}

/** At most this many tokens: no tokenizer in use makes fewer than three bytes of text a token. */
export function tokenBound(text: string): number {
  return Math.ceil(utf8Bytes(text) / 3) + TOKENS_PER_MESSAGE;
}

export interface Prices {
  usdPerMillionInput: number;
  usdPerMillionOutput: number;
}

export function usdOf(inputTokens: number, outputTokens: number, p: Prices): number {
  return (inputTokens * p.usdPerMillionInput + outputTokens * p.usdPerMillionOutput) / 1e6;
}

/**
 * Speech runs at about 150 words a minute, 1.3 tokens a word: 3.3 tokens a second. A transcript line
 * adds its time and speaker ("[754] spk-2: "), so a second of media is about 4 typical tokens and at
 * most 6 bounded ones (three bytes a token over about 18 bytes a second). The spend cap's claim-time
 * estimate uses the bound; docs/digests.md "Money" has the calibration.
 */
export const BOUND_TOKENS_PER_MEDIA_SECOND = 6;
