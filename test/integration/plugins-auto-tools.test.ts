import { callsTo, sseEvents, sseSteps, userMessage } from '../helpers/completion-fixtures';
import { AUTO_TOOLS, mastodonSettings, pluginReports, pluginSpace, searchesFor, upstreamBodies, usePluginHarness } from '../helpers/plugin-harness';
import request from 'supertest';
import type { Tenant } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';

/** auto_tools (Service-Feature-Flags): the tool loop, pre-selection, and their limits. */
const env = usePluginHarness();

const autoComplete = (tenant: Tenant, body: object) =>
  request(env.h.app)
    .post('/v1/chat/completions')
    .set(tenant.auth)
    .set(AUTO_TOOLS)
    .send({ stream: false, ...body });

const toolNames = (body: { tools?: { function: { name: string } }[] } | undefined) => (body?.tools ?? []).map((tool) => tool.function.name);

describe('the tool loop (a model that calls functions)', () => {
  it("runs the model's call to web_search in the worker and answers with its results", async () => {
    const { tenant, models } = await pluginSpace(env);
    const res = await autoComplete(tenant, { messages: userMessage('ferry timetable changes') });
    expect(res.status).toBe(200);
    const message = res.body.choices[0].message as { content: string; tool_calls?: unknown };
    expect(message.tool_calls).toBeUndefined();
    expect(res.body.choices[0].finish_reason).toBe('stop');
    expect(message.content).toMatch(/^Tool said: /);
    expect(message.content).toContain('<plugin_output plugin="web-search">');
    expect(message.content).toContain('Result 1 about ferry timetable changes');
    expect(searchesFor(env, 'ferry timetable changes')).toBe(1);

    const [first, second] = upstreamBodies(env, models.answering);
    expect(toolNames(first)).toContain('web_search');
    expect(second?.messages.at(-1)).toMatchObject({ role: 'tool' });
    expect(pluginReports(res.body)).toEqual([expect.objectContaining({ id: 'web-search', trigger: 'tool_call', status: 'ok' })]);
    expect(res.body.metadata.search_results.items[0]).toMatchObject({ index: 1, source: 'web' });
  });

  it("gives the caller's own tool call back to the caller, and runs no plugin", async () => {
    const { tenant, models } = await pluginSpace(env);
    const tools = [
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { query: { type: 'string' } } } },
      },
    ];
    const res = await autoComplete(tenant, { tools, messages: userMessage('weather in Porto') });
    expect(res.status).toBe(200);
    expect(res.body.choices[0].finish_reason).toBe('tool_calls');
    expect(res.body.choices[0].message.tool_calls).toEqual([expect.objectContaining({ function: expect.objectContaining({ name: 'get_weather' }) })]);
    expect(toolNames(upstreamBodies(env, models.answering)[0])).toEqual(expect.arrayContaining(['get_weather', 'web_search']));
    expect(searchesFor(env, 'weather in Porto')).toBe(0);
    expect(pluginReports(res.body)).toEqual([]);
  });

  it('streams steps (as SSE comments) and the final answer, never the plugin tool-call deltas', async () => {
    const { tenant } = await pluginSpace(env);
    const res = await request(env.h.app)
      .post('/v1/chat/completions')
      .set(tenant.auth)
      .set(AUTO_TOOLS)
      .send({ stream: true, messages: userMessage('harbour crane news') })
      .buffer(true)
      .parse((response, done) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => done(null, text));
      });
    expect(res.status).toBe(200);
    const events = sseEvents(res.body as string);
    expect(sseSteps(res.body as string).some((step) => step.kind === 'plugin')).toBe(true);
    const deltas = events.flatMap((e) => (e.choices as { delta?: { content?: string; tool_calls?: unknown } }[] | undefined) ?? []).map((c) => c.delta ?? {});
    expect(deltas.filter((d) => d.tool_calls !== undefined)).toEqual([]);
    const text = deltas.map((d) => d.content ?? '').join('');
    expect(text).toMatch(/^Tool said: /);
    expect(text).toContain('Result 1 about harbour crane news');
  });
});

describe('pre-selection', () => {
  it.each([
    ['the Space asks for it', { settings: { auto_tools: { mode: 'preselect' } } }, true],
    ['the model cannot call functions', {}, false],
  ])('picks web-search for a news question when %s, and the model gets the context', async (_name, update, functions) => {
    const { tenant, models } = await pluginSpace(env, { update });
    if (!functions) await env.h.services.db.model.update({ where: { id: models.answering.id }, data: { supports_functions: false } });
    const res = await autoComplete(tenant, { messages: userMessage('What is the latest news about the tram strike today?') });
    expect(res.status).toBe(200);
    const bodies = upstreamBodies(env, models.answering);
    expect(bodies).toHaveLength(1);
    expect(toolNames(bodies[0])).toEqual([]);
    expect(JSON.stringify(bodies[0]?.messages)).toContain('<plugin_output plugin=\\"web-search\\">');
    expect(pluginReports(res.body)).toEqual([expect.objectContaining({ id: 'web-search', trigger: 'preselected', status: 'ok' })]);
  });
});

describe('social-post under auto_tools', () => {
  it('is never offered unless the Space allows it', async () => {
    const settings = { ...mastodonSettings(env), auto_tools: { plugins: ['social-post', 'web-search'] } };
    const { tenant, models } = await pluginSpace(env, { update: { settings } });
    const before = env.mastodon.statuses.length;
    const res = await autoComplete(tenant, { messages: userMessage('post this to mastodon please') });
    expect(res.status).toBe(200);
    expect(toolNames(upstreamBodies(env, models.answering)[0])).toEqual(['web_search']);
    expect(env.mastodon.statuses).toHaveLength(before);
  });

  it('posts the final answer when allow_auto_tools is true and the model calls it', async () => {
    const settings = { ...mastodonSettings(env, { allow_auto_tools: true }), auto_tools: { plugins: ['social-post'] } };
    const { tenant } = await pluginSpace(env, { update: { settings } });
    const before = env.mastodon.statuses.length;
    const res = await autoComplete(tenant, { messages: userMessage('share the good news') });
    expect(res.status).toBe(200);
    expect(env.mastodon.statuses).toHaveLength(before + 1);
    expect(env.mastodon.statuses.at(-1)?.content).toContain('Tool said:');
    expect(res.body.metadata.generated_artifacts.items).toEqual([expect.objectContaining({ type: 'social_post', url: env.mastodon.statuses.at(-1)?.url })]);
  });
});

describe('limits of the loop, with a model that always calls a tool', () => {
  it('stops offering plugins at max_steps model calls', async () => {
    const { tenant, models } = await pluginSpace(env, { namespace: `sim-tool-loop-${uniqueSuffix()}`, update: { settings: { auto_tools: { max_steps: 3 } } } });
    const res = await autoComplete(tenant, { messages: userMessage('keep searching') });
    expect(res.status).toBe(200);
    const bodies = upstreamBodies(env, models.answering);
    expect(bodies).toHaveLength(3);
    expect(toolNames(bodies[2])).toEqual([]);
    expect(pluginReports(res.body)).toHaveLength(2);
    expect(res.body.choices[0].message.content).toMatch(/^Tool said: /);
  });

  it('stops offering plugins once policies.max_cost is spent', async () => {
    const { tenant, models } = await pluginSpace(env, { namespace: `sim-tool-loop-${uniqueSuffix()}`, update: { policies: { max_cost: 0.001 } } });
    const res = await autoComplete(tenant, { messages: userMessage('search until broke') });
    expect(res.status).toBe(200);
    // The first search costs 0.002, over max_cost: the next call is made without plugins.
    expect(callsTo(env.sim, models.answering)).toHaveLength(2);
    expect(toolNames(upstreamBodies(env, models.answering)[1])).toEqual([]);
    expect(pluginReports(res.body)).toHaveLength(1);
  });
});
