import { countTokens as countO200k } from 'gpt-tokenizer';

/**
 * Token counts under OpenAI's o200k_base encoding (GPT-4o and later), in time linear in the text.
 *
 * Up to `EXACT_CHARS` characters (per text, or per conversation) the count is exact but for stretches of
 * over 256 characters without a space (see `bpeSegments`). Past it, byte-pair encoding every character
 * would cost up to ~1 µs per character of text its cache has not seen (random letters, base64), ~100 ms per
 * 100 KB, so the count is extrapolated from `SAMPLES` evenly spaced windows of `SAMPLE_CHARS` characters:
 * tokens per character of the windows times the length. Counting costs then at most a fixed ~10 ms
 * (the exact budget, for random text) plus a scan of the text.
 */

/** Characters without an exact cut after which one is forced; past ~250 merging costs more per character (quadratic). */
export const MAX_STRETCH_CHARS = 256;
/** Characters in a segment at most when exact cuts allow it: fewer, larger segments cost fewer library calls. */
export const TARGET_SEGMENT_CHARS = 2_048;

const SPACE = 0x20;

/** What a regular expression's `\s` matches: ECMAScript white space and line terminators. */
export function isWhitespace(code: number): boolean {
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

/**
 * Cuts a text into segments that o200k's byte-pair encoding can take one at a time in linear total time:
 * the segments in order (the text itself when it is short), in one pass over its characters.
 *
 * gpt-tokenizer merges each pre-token (a run of letters, of punctuation, of whitespace) in time quadratic in its
 * length, so one 150 KB word cost 18 s of CPU. A segment ends just before a space followed by a non-space
 * character: o200k's split pattern always starts a pre-token there (the space joins the word after it), so
 * counting the segments apart gives the count of the whole. A stretch with no such space longer than
 * `MAX_STRETCH_CHARS` (a DNA sequence, base64, minified JSON, a line of `=`) is cut every `MAX_STRETCH_CHARS`
 * characters instead; each of those cuts may add about one token to the count.
 */
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

/** Characters counted exactly; ordinary chat requests are shorter. */
export const EXACT_CHARS = 8_192;
const SAMPLES = 8;
const SAMPLE_CHARS = 256;

/** A user's `<|endoftext|>` is text like any other (the library's default throws on it). */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

function exactTokens(text: string): number {
  // A short text is its only segment (`bpeSegments`), counted without the list.
  if (text.length <= MAX_STRETCH_CHARS) return countO200k(text, AS_TEXT);
  let tokens = 0;
  for (const segment of bpeSegments(text)) tokens += countO200k(segment, AS_TEXT);
  return tokens;
}

/** Tokens per character of `SAMPLES` windows spread evenly over a text longer than `EXACT_CHARS`. */
function sampledRate(text: string): number {
  const step = (text.length - SAMPLE_CHARS) / (SAMPLES - 1);
  let tokens = 0;
  let chars = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const start = Math.round(i * step);
    const window = text.slice(start, start + SAMPLE_CHARS);
    tokens += exactTokens(window);
    chars += window.length;
  }
  return tokens / chars;
}

/** Tokens of a text: exact up to `EXACT_CHARS`, extrapolated from samples past it. */
export function countTokens(text: string): number {
  if (text.length <= EXACT_CHARS) return exactTokens(text);
  return Math.round(sampledRate(text) * text.length);
}

/** Tokens a chat message costs beyond its text (role and separators), as OpenAI counts them. */
const PER_MESSAGE_OVERHEAD = 4;

/** Prompt tokens of a conversation given each message's text: the one count of the service and of `router:eval`. */
export function conversationTokens(texts: readonly string[]): number {
  const overhead = texts.length * PER_MESSAGE_OVERHEAD;
  const chars = texts.reduce((sum, text) => sum + text.length, 0);
  if (chars <= EXACT_CHARS) return texts.reduce((sum, text) => sum + exactTokens(text), overhead);
  return overhead + countTokens(texts.join('\n'));
}
