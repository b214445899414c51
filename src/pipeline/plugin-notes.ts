/**
 * The sentences a plugin leaves in `metadata.warning` / `metadata.error`, composed in one place so that
 * each names its plugin once and ends in one period, whatever the plugin's own text looks like (plugins
 * prefix their reasons with their id, and some end them with a period).
 */

/** The plugin's text without a leading `<id>: ` and without trailing periods or spaces. */
export function bareText(id: string, text: string): string {
  const prefix = `${id}: `;
  const unprefixed = text.startsWith(prefix) ? text.slice(prefix.length) : text;
  return unprefixed.trim().replace(/[.\s]+$/, '');
}

/** Why a plugin did not run or failed, without the final period: `web-search is unavailable: SEARXNG_BASE_URL is not set`. */
export function pluginProblem(id: string, verb: 'is unavailable' | 'failed', reason: string): string {
  const bare = bareText(id, reason);
  return bare === '' ? `${id} ${verb}` : `${id} ${verb}: ${bare}`;
}

/** A text as one sentence: ending in exactly one period. */
export function sentence(text: string): string {
  return `${text.trim().replace(/[.\s]+$/, '')}.`;
}

/** A plugin's own warning about a run that succeeded: `web-search: 2 of 5 pages could not be read.` */
export function pluginWarning(id: string, warning: string): string {
  return sentence(`${id}: ${bareText(id, warning)}`);
}
