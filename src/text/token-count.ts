import { countTokens as countO200k } from 'gpt-tokenizer';
import { bpeSegments } from './bpe-segments';

/**
 * Token counts under OpenAI's o200k_base encoding (GPT-4o and later), in time linear in the text.
 *
 * Up to `EXACT_CHARS` characters (per text, or per conversation) the count is exact but for stretches of
 * over 256 characters without a space (see `bpe-segments.ts`). Past it, byte-pair encoding every character
 * would cost up to ~1 µs per character of text its cache has not seen (random letters, base64), ~100 ms per
 * 100 KB, so the count is extrapolated from `SAMPLES` evenly spaced windows of `SAMPLE_CHARS` characters:
 * tokens per character of the windows times the length. Counting costs then at most a fixed ~10 ms
 * (the exact budget, for random text) plus a scan of the text.
 */

/** Characters counted exactly; ordinary chat requests are shorter. */
export const EXACT_CHARS = 8_192;
const SAMPLES = 8;
const SAMPLE_CHARS = 256;

/** A user's `<|endoftext|>` is text like any other (the library's default throws on it). */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

function exactTokens(text: string): number {
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
