import { distance } from 'fastest-levenshtein';

/**
 * The known names an unknown one probably meant, fewest edits first: those within a third of its length
 * in edits (as "did you mean" prompts do), and those containing it or contained in it, at most `limit`.
 * Case is ignored. Used on error paths only (the API's unknown model, the CLI's unknown names).
 */
export function closeNames(wanted: string, known: readonly string[], limit = 5): string[] {
  const lower = wanted.toLowerCase();
  const maxEdits = Math.max(2, Math.floor(lower.length / 3));
  return [...new Set(known)]
    .map((name) => {
      const other = name.toLowerCase();
      return { name, edits: distance(lower, other), contains: other.includes(lower) || lower.includes(other) };
    })
    .filter((entry) => entry.contains || entry.edits <= maxEdits)
    .sort((a, b) => a.edits - b.edits || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map((entry) => entry.name);
}

/** "Did you mean 'a', 'b'?" for an error message, or null when no known name is close. */
export function didYouMean(wanted: string, known: readonly string[], limit = 3): string | null {
  const close = closeNames(wanted, known, limit);
  return close.length > 0 ? `Did you mean ${close.map((name) => `'${name}'`).join(', ')}?` : null;
}
