import { closeNames } from '../text/close-names';

/** "Did you mean" text for an error message, or a pointer to the full list. */
export function closeNamesHint(wanted: string, known: readonly string[], listCommand: string): string {
  const close = closeNames(wanted, known);
  return close.length > 0 ? `Did you mean ${close.map((name) => `'${name}'`).join(', ')}?` : `See \`${listCommand}\` for the names.`;
}
