/** Characters of English text per token, roughly, as the shared data's README assumes. */
const CHARS_PER_TOKEN = 4;

/** Estimated completion tokens of an answer `chars` characters long. */
export function tokensFromChars(chars: number): number {
  return Math.round(chars / CHARS_PER_TOKEN);
}

/** Characters as Python's `len` counts them (code points), so a response's length matches the sets' `output_chars`. */
export function charCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
