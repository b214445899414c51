/** How many edits (insert, delete, replace, swap two neighbours) turn `a` into `b`: optimal string alignment. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The known names an unknown one probably meant, best first: those containing it or contained in it,
 * and those within a third of its length in edits (as "did you mean" prompts do), at most `limit`.
 */
export function closeNames(wanted: string, known: readonly string[], limit = 5): string[] {
  const lower = wanted.toLowerCase();
  const maxEdits = Math.max(2, Math.floor(lower.length / 3));
  return known
    .map((name) => {
      const other = name.toLowerCase();
      const contains = other.includes(lower) || lower.includes(other);
      return { name, distance: contains ? 0 : editDistance(lower, other) };
    })
    .filter((entry) => entry.distance <= maxEdits)
    .sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map((entry) => entry.name);
}

/** "Did you mean" text for an error message, or a pointer to the full list. */
export function closeNamesHint(wanted: string, known: readonly string[], listCommand: string): string {
  const close = closeNames(wanted, known);
  return close.length > 0 ? `Did you mean ${close.map((name) => `'${name}'`).join(', ')}?` : `See \`${listCommand}\` for the names.`;
}
