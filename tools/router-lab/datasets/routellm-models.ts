/**
 * RouteLLM's column and judgement names mapped to the names of `prices.json`'s `routellm_2model` set.
 * Explicit, so a file naming another model fails loudly instead of producing an unpriced model.
 */
const ROUTELLM_MODEL_NAMES: Readonly<Record<string, string>> = {
  'mistralai/Mixtral-8x7B-Instruct-v0.1': 'mixtral-8x7b-instruct-v0.1',
  'gpt-4-1106-preview': 'gpt-4-1106-preview',
};

/** The price-table name of a RouteLLM model; an unknown name throws, naming where it was found. */
export function routellmModelName(name: string, source: string): string {
  const known = Object.hasOwn(ROUTELLM_MODEL_NAMES, name) ? ROUTELLM_MODEL_NAMES[name] : undefined;
  if (known === undefined) {
    throw new Error(`${source}: unknown RouteLLM model '${name}' (known: ${Object.keys(ROUTELLM_MODEL_NAMES).join(', ')}).`);
  }
  return known;
}

/** RouteLLM's correctness cells: Python booleans. */
export function routellmBoolean(cell: string, source: string): 0 | 1 {
  if (cell === 'True') return 1;
  if (cell === 'False') return 0;
  throw new Error(`${source}: expected True or False, found '${cell}'.`);
}
