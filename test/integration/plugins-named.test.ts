import { complete, completeStream, logsOf, nth, sseEvents, sseSteps, userMessage } from '../helpers/completion-fixtures';
import {
  pluginReports,
  pluginSpace,
  SEARCH_COST_USD,
  searchesFor,
  updateSpace,
  upstreamBodies,
  uploadReadyFile,
  usePluginHarness,
} from '../helpers/plugin-harness';

/** Named plugins through the whole pipeline: API, worker, SearXNG simulator, provider simulator, logs. */
const env = usePluginHarness();

interface SearchItem {
  index: number;
  source: string;
  url?: string;
  file_id?: string;
}

describe('a request naming web-search', () => {
  it('puts the delimited results before the last user turn, numbers the sources and logs a child per step', async () => {
    const { tenant, models } = await pluginSpace(env);
    const question = 'What happened to the harbour ferries this week?';
    const res = await complete(env.h, tenant, { plugins: ['web-search'], messages: [{ role: 'system', content: 'Be brief.' }, ...userMessage(question)] });
    expect(res.status).toBe(200);
    expect(searchesFor(env, 'harbour ferries')).toBe(1);

    const [body] = upstreamBodies(env, models.answering);
    const messages = body?.messages ?? [];
    const systems = messages.filter((m) => String(m.content).includes('<plugin_output plugin="web-search">'));
    expect(systems).toHaveLength(1);
    expect(nth(messages, -2)).toBe(systems[0]);
    expect(nth(messages, -2).role).toBe('system');
    expect(String(nth(messages, -2).content)).toMatch(/<plugin_output plugin="web-search">[\s\S]*\[1\] Result 1 about[\s\S]*<\/plugin_output>/);
    expect(nth(messages, -1)).toEqual({ role: 'user', content: question });

    const items = res.body.metadata.search_results.items as SearchItem[];
    expect(items.length).toBeGreaterThan(0);
    expect(items.map((item) => item.index)).toEqual(items.map((_, i) => i + 1));
    expect(items[0]).toMatchObject({ source: 'web', url: 'https://example.org/result-1' });
    expect(pluginReports(res.body)).toEqual([
      expect.objectContaining({ id: 'web-search', trigger: 'requested', status: 'ok', cost: SEARCH_COST_USD, reason: 'named in the request' }),
    ]);

    const { parent, children } = await logsOf(env.h, res.body.id as string);
    expect(children.every((child) => child.parent_id === parent.id)).toBe(true);
    const plugin = children.filter((child) => (child.payload as { step?: string }).step === 'plugin');
    const model = children.filter((child) => (child.payload as { step?: string }).step === 'model');
    expect(plugin).toHaveLength(1);
    expect(model).toHaveLength(1);
    expect(plugin[0]).toMatchObject({ namespace: 'web-search', status_code: 200, total_tokens_cost: SEARCH_COST_USD, costs_incurred: true });
    expect(plugin[0]?.latency).toBeGreaterThanOrEqual(0);
    expect(plugin[0]?.payload).toMatchObject({
      plugin: 'web-search',
      backend: expect.stringContaining('searxng'),
      query: expect.stringContaining('harbour ferries'),
    });
    expect(plugin[0]?.response).toMatchObject({ results: items.length });
    const modelCost = Number(model[0]?.total_tokens_cost);
    expect(modelCost).toBeGreaterThan(0);
    expect(Number(parent.total_tokens_cost)).toBeCloseTo(modelCost + SEARCH_COST_USD, 9);
  });

  it('streams steps as SSE comments a client skips, then the answer, every chunk with a choice, and the metadata on the last', async () => {
    const { tenant } = await pluginSpace(env);
    const res = await completeStream(env.h, tenant, { plugins: ['web-search'], messages: userMessage('Latest on tidal energy') });
    expect(res.status).toBe(200);
    const events = sseEvents(res.text);
    expect(sseSteps(res.text)).toEqual([
      { kind: 'plugin', name: 'web-search', status: 'started' },
      expect.objectContaining({ kind: 'plugin', name: 'web-search', status: 'finished' }),
    ]);
    for (const event of events) expect((event.choices as unknown[]).length).toBeGreaterThan(0);
    const text = events
      .flatMap((e) => (e.choices as { delta?: { content?: string } }[] | undefined) ?? [])
      .map((c) => c.delta?.content ?? '')
      .join('');
    expect(text).toBe('Echo: Latest on tidal energy');
    const last = events.at(-1) as { metadata: { search_results: { items: SearchItem[] } } } | undefined;
    expect(last?.metadata.search_results.items[0]).toMatchObject({ index: 1, source: 'web' });
    expect(pluginReports(last ?? {})).toEqual([expect.objectContaining({ id: 'web-search', status: 'ok' })]);
  });

  it('numbers the sources of web-search and space-search across both, without collision', async () => {
    const { tenant, models } = await pluginSpace(env);
    const fileId = await uploadReadyFile(env.h, tenant, {
      name: 'lighthouses.md',
      text: '# Lighthouses\n\nThe keepers of the northern lighthouses switched to solar lamps in 2024.',
    });
    const res = await complete(env.h, tenant, { plugins: ['web-search', 'space-search'], messages: userMessage('lighthouses solar lamps keepers') });
    expect(res.status).toBe(200);
    const items = res.body.metadata.search_results.items as SearchItem[];
    expect(items.map((item) => item.index)).toEqual(items.map((_, i) => i + 1));
    const space = items.filter((item) => item.source === 'space');
    expect(space.length).toBeGreaterThan(0);
    expect(space[0]?.file_id).toBe(fileId);
    expect(items.filter((item) => item.source === 'web').length).toBeGreaterThan(0);
    const context = String(nth(upstreamBodies(env, models.answering)[0]?.messages ?? [], -2).content);
    expect(context).toContain('<plugin_output plugin="web-search">');
    expect(context).toContain('<plugin_output plugin="space-search">');
    // The first Space source carries, in the model's context, the number it has in search_results.
    expect(context).toContain(`[${space[0]?.index}]`);
    expect(pluginReports(res.body).map((p) => p.id)).toEqual(['web-search', 'space-search']);
  });
});

describe('citations', () => {
  it('annotates a web source marker in the answer with a url_citation', async () => {
    const { tenant } = await pluginSpace(env);
    const res = await complete(env.h, tenant, { plugins: ['web-search'], messages: userMessage('Quote source [1] on rainfall') });
    expect(res.status).toBe(200);
    const message = res.body.choices[0].message as { content: string; annotations?: unknown[] };
    const start = message.content.indexOf('[1]');
    expect(message.annotations).toEqual([
      {
        type: 'url_citation',
        url_citation: { start_index: start, end_index: start + 3, url: 'https://example.org/result-1', title: expect.stringContaining('Result 1') },
      },
    ]);
  });

  it('leaves an answer without markers, or without search results, unannotated', async () => {
    const { tenant } = await pluginSpace(env);
    await updateSpace(env.h, tenant, {}).expect(200);
    const plain = await complete(env.h, tenant, { messages: userMessage('Quote source [1] without searching') });
    expect(plain.body.choices[0].message.annotations).toBeUndefined();
    const unmarked = await complete(env.h, tenant, { plugins: ['web-search'], messages: userMessage('No markers here') });
    expect(unmarked.body.choices[0].message.annotations).toBeUndefined();
  });
});
