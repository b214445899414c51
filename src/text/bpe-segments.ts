/**
 * Cuts a text into segments that o200k's byte-pair encoding can take one at a time in linear total time.
 *
 * gpt-tokenizer merges each pre-token (a run of letters, of punctuation, of whitespace) in time quadratic in its
 * length, so one 150 KB word cost 18 s of CPU. A segment ends just before a space followed by a non-space
 * character: o200k's split pattern always starts a pre-token there (the space joins the word after it), so
 * counting the segments apart gives the count of the whole. A stretch with no such space longer than
 * `MAX_STRETCH_CHARS` (a DNA sequence, base64, minified JSON, a line of `=`) is cut every `MAX_STRETCH_CHARS`
 * characters instead; each of those cuts may add about one token to the count.
 */

/** Characters without an exact cut after which one is forced; past ~250 merging costs more per character (quadratic). */
export const MAX_STRETCH_CHARS = 256;
/** Characters in a segment at most when exact cuts allow it: fewer, larger segments cost fewer library calls. */
export const TARGET_SEGMENT_CHARS = 2_048;

const SPACE = 0x20;

function isWhitespace(code: number): boolean {
  if (code === SPACE || (code >= 0x09 && code <= 0x0d)) return true;
  if (code < 0x80) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The text's segments in order (the text itself when it is short), in one pass over its characters. */
export function bpeSegments(text: string): string[] {
  if (text.length <= MAX_STRETCH_CHARS) return [text];
  const segments: string[] = [];
  let start = 0;
  /** The last exact cut, or forced cut, at or after `start`. */
  let lastCut = 0;
  for (let i = 1; i < text.length; i++) {
    if (text.charCodeAt(i) === SPACE && !isWhitespace(text.charCodeAt(i + 1))) {
      lastCut = i;
    } else if (i - lastCut >= MAX_STRETCH_CHARS) {
      const forced = isLowSurrogate(text.charCodeAt(i)) ? i - 1 : i;
      segments.push(text.slice(start, forced));
      start = forced;
      lastCut = forced;
      continue;
    }
    if (i - start >= TARGET_SEGMENT_CHARS && lastCut > start) {
      segments.push(text.slice(start, lastCut));
      start = lastCut;
    }
  }
  segments.push(text.slice(start));
  return segments;
}
