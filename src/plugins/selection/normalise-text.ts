/** The longest text read: the cues sit in what a user types, and a pasted book must not cost more. */
const MAX_CHARS = 4000;

/**
 * Lower case, typographic apostrophes made straight, whitespace runs made one space: the lexicons
 * are written against this form.
 */
export function normaliseText(text: string): string {
  return text.slice(0, MAX_CHARS).toLowerCase().replace(/[’‘´]/gu, "'").replace(/\s+/gu, ' ').trim();
}
