// What a subtitle format would read as structure, made plain text (issue 23, docs/transcripts.md
// "Exports"): a speaker renamed "00:00:01,000 --> 00:00:09,000", or text with line breaks, must not
// start a cue or end one. Arrows become "→", and line breaks and other control characters one space.

/** One line of cue text or a name, with nothing SRT or WebVTT would take for a timing line or a cue's end. */
export function neutralLine(text: string): string {
  return text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f\u0085\u2028\u2029]+/g, ' ')
    .replace(/-+-+>/g, '→');
}
