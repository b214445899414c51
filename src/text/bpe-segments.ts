/**
 * Cuts a text into segments that o200k's byte-pair encoding can take one at a time in linear total time.
 *
 * gpt-tokenizer merges each pre-token (a run of letters, of punctuation, of whitespace) in time quadratic in its
 * length, so one 150 KB word cost 18 s of CPU. A segment ends just before a space followed by a non-space
 * character: o200k's split pattern always starts a pre-token there (the space joins the word after it), so
 * counting the segments apart gives the count of the whole. A stretch with no such space longer than
 * `MAX_SEGMENT_CHARS` (a DNA sequence, base64, minified JSON, a line of `=`) is cut every `MAX_SEGMENT_CHARS`
 * characters instead; each of those cuts may add about one token to the count.
 */

/** Characters in a segment at most; past ~250 a segment costs more per character (quadratic merging). */
export const MAX_SEGMENT_CHARS = 256;

const SPACE = 0x20;

function isWhitespace(code: number): boolean {
  if (code === SPACE || (code >= 0x09 && code <= 0x0d)) return true;
  if (code < 0x80) return false;
  return code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Where to end the segment starting at `start`: the last exact cut in reach, else a hard cut that keeps surrogate pairs whole. */
function segmentEnd(text: string, start: number): number {
  const limit = start + MAX_SEGMENT_CHARS;
  if (limit >= text.length) return text.length;
  for (let i = limit; i > start; i--) {
    if (text.charCodeAt(i) === SPACE && !isWhitespace(text.charCodeAt(i + 1))) return i;
  }
  return isLowSurrogate(text.charCodeAt(limit)) ? limit - 1 : limit;
}

/** The text's segments in order (the text itself when it is short). */
export function bpeSegments(text: string): string[] {
  if (text.length <= MAX_SEGMENT_CHARS) return [text];
  const segments: string[] = [];
  for (let start = 0; start < text.length; ) {
    const end = segmentEnd(text, start);
    segments.push(text.slice(start, end));
    start = end;
  }
  return segments;
}
