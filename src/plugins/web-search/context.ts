/** One numbered source as the model sees it. */
export interface ContextSource {
  title: string;
  url: string;
  /** The fetched page's readable text, or the search snippet. */
  text: string;
  publishedAt?: string;
}

/**
 * The block the model reads, in the spirit of OpenRouter's web plugin: dated, then the numbered sources
 * (`[1]` is `search_results.items[0]`, so an answer's markers map back). The runner delimits it and
 * labels it as data; nothing here is an instruction from the sources themselves.
 */
export function webSearchContext({ query, date, sources }: { query: string; date: Date; sources: ContextSource[] }): string {
  const day = date.toISOString().slice(0, 10);
  if (sources.length === 0) return `A web search was conducted on ${day} for "${query}" and found no results.`;
  const entries = sources.map((source, i) => {
    const lines = [`[${i + 1}] ${source.title} — ${source.url}`];
    if (source.publishedAt) lines.push(`Published: ${source.publishedAt}`);
    if (source.text) lines.push(source.text);
    return lines.join('\n');
  });
  return [
    `A web search was conducted on ${day} for "${query}". Use the following results where they are relevant, and cite each source you use by its number in square brackets, e.g. [1].`,
    'Results:',
    ...entries,
  ].join('\n\n');
}
