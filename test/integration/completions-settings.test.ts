import request from 'supertest';
import { prepareCompletion } from '../../src/pipeline/prepare-request';
import { SpaceContextLoader } from '../../src/store/space-context';
import type { CompletionJob } from '../../src/queue/payloads';
import { CompletionSources } from '../../src/store/completion-sources';
import type { Tenant } from '../helpers/test-context';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { uniqueSuffix } from '../helpers/test-database';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * What a request is built from besides its own body: the Space's settings, an assistant, the earlier
 * turns of a conversation; and the request-level switches: feature flags and labels.
 */

let sim: Simulator;
let h: CompletionsHarness;

beforeAll(async () => {
  sim = await startSimulator();
  h = startCompletionsHarness({
    providers: simulatedProviders(sim),
  });
});
afterAll(async () => {
  await h.close();
  await sim.close();
});
beforeEach(() => sim.reset());

/** An OpenAI-dialect model of the default Space (the automatic choice is another one). */
const MODEL = 'gpt-4.1-mini';

interface UpstreamBody {
  model: string;
  messages: { role: string; content: unknown }[];
  temperature?: number;
  max_tokens?: number;
}

const complete = (tenant: Tenant, body: object, headers: Record<string, string> = {}) =>
  request(h.app)
    .post('/v1/chat/completions')
    .set(tenant.auth)
    .set(headers)
    .send({ model: MODEL, messages: [{ role: 'user', content: 'Hello there' }], ...body });

/** What the simulator received for the only upstream call since the test began. */
function upstream(): UpstreamBody {
  expect(sim.requests).toHaveLength(1);
  return sim.requests[0].body as UpstreamBody;
}

async function updateSpace(tenant: Tenant, changes: object): Promise<void> {
  await request(h.app)
    .put('/v1/apps/update')
    .set(tenant.auth)
    .send({ id: tenant.app_id, ...changes })
    .expect(200);
}

async function createAssistant(tenant: Tenant, config: object): Promise<{ id: string; version_id: string }> {
  const res = await request(h.app)
    .post(`/v1/apps/${tenant.app_id}/assistants/`)
    .set(tenant.auth)
    .send({ name: `Helper ${uniqueSuffix()}`, assistant_config: config });
  expect(res.status).toBe(201);
  return res.body;
}

async function createConversation(tenant: Tenant): Promise<string> {
  const res = await request(h.app).post(`/v1/apps/${tenant.app_id}/conversations/create`).set(tenant.auth).send({ name: 'Chat' });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** The request's log, once the worker's batched insert has landed (a few ms after the answer). */
async function logOf(tenant: Tenant, id: string): Promise<Record<string, unknown>> {
  for (let tries = 0; tries < 100; tries += 1) {
    const res = await request(h.app).get(`/v1/logs/${id}`).set(tenant.auth);
    if (res.status === 200) return res.body;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`log ${id} was not written`);
}

describe('Space settings', () => {
  it('instructions become the system message, and the default max_tokens and temperature apply', async () => {
    const tenant = await h.tenant();
    await updateSpace(tenant, { settings: { instructions: 'You answer in one sentence.', max_tokens: 64, temperature: 0.3 } });
    const res = await complete(tenant, {});
    expect(res.status).toBe(200);
    const sent = upstream();
    expect(sent.messages).toEqual([
      { role: 'system', content: 'You answer in one sentence.' },
      { role: 'user', content: 'Hello there' },
    ]);
    expect(sent).toMatchObject({ model: MODEL, max_tokens: 64, temperature: 0.3 });
    expect(res.body.metadata).toMatchObject({ max_tokens: 64, temperature: 0.3 });
  });

  it("give way to the request's own system message, max_tokens and temperature", async () => {
    const tenant = await h.tenant();
    await updateSpace(tenant, { settings: { instructions: 'You answer in one sentence.', max_tokens: 64, temperature: 0.3 } });
    const messages = [
      { role: 'system', content: 'You are a pirate.' },
      { role: 'user', content: 'Hello there' },
    ];
    const res = await complete(tenant, { messages, max_tokens: 10, temperature: 1.2 });
    expect(res.status).toBe(200);
    const sent = upstream();
    expect(sent.messages).toEqual(messages);
    expect(sent).toMatchObject({ max_tokens: 10, temperature: 1.2 });
    expect(res.body.metadata).toMatchObject({ max_tokens: 10, temperature: 1.2 });
  });

  it('leave max_tokens and temperature unset when neither the Space nor the request sets them', async () => {
    const tenant = await h.tenant();
    const res = await complete(tenant, {});
    expect(res.status).toBe(200);
    const sent = upstream();
    expect(sent).not.toHaveProperty('max_tokens');
    expect(sent).not.toHaveProperty('temperature');
    expect(sent.messages).toEqual([{ role: 'user', content: 'Hello there' }]);
    expect(res.body.metadata).toMatchObject({ max_tokens: null, temperature: null });
  });
});

describe('assistants', () => {
  const config = { instructions: 'You are Ada, a librarian.', model: 'claude-haiku-4-5', temperature: 0.7, max_tokens: 77 };

  it('named by assistant_id apply their instructions, model and temperature', async () => {
    const tenant = await h.tenant();
    await updateSpace(tenant, { settings: { instructions: 'Space instructions lose to the assistant.' } });
    const assistant = await createAssistant(tenant, { ...config, model: MODEL });
    const res = await request(h.app)
      .post('/v1/chat/completions')
      .set(tenant.auth)
      .send({ assistant_id: assistant.id, messages: [{ role: 'user', content: 'Hello there' }] });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe(MODEL);
    const sent = upstream();
    expect(sent.messages).toEqual([
      { role: 'system', content: 'You are Ada, a librarian.' },
      { role: 'user', content: 'Hello there' },
    ]);
    expect(sent).toMatchObject({ model: MODEL, temperature: 0.7, max_tokens: 77 });
  });

  it("named by the Space's settings.assistant_id apply without the request naming them", async () => {
    const tenant = await h.tenant();
    const assistant = await createAssistant(tenant, config);
    await updateSpace(tenant, { settings: { assistant_id: assistant.id } });
    const res = await request(h.app)
      .post('/v1/chat/completions')
      .set(tenant.auth)
      .send({ messages: [{ role: 'user', content: 'Hello there' }] });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('claude-haiku-4-5');
    const sent = sim.requests[0];
    expect(sent.dialect).toBe('/anthropic');
    expect(sent.body).toMatchObject({ model: 'claude-haiku-4-5-20251001', system: 'You are Ada, a librarian.', temperature: 0.7, max_tokens: 77 });
  });

  it("lose to the request's own model and temperature", async () => {
    const tenant = await h.tenant();
    const assistant = await createAssistant(tenant, config);
    const res = await complete(tenant, { assistant_id: assistant.id, temperature: 0.1 });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe(MODEL);
    expect(upstream()).toMatchObject({ model: MODEL, temperature: 0.1, max_tokens: 77 });
  });

  it('apply a changed configuration to the very next request (read once per Space snapshot, not kept past a change)', async () => {
    const tenant = await h.tenant();
    const assistant = await createAssistant(tenant, { ...config, model: MODEL });
    const ask = () => complete(tenant, { assistant_id: assistant.id }).expect(200);
    await ask();
    await ask();
    expect(sim.requests.map((call) => (call.body as UpstreamBody).temperature)).toEqual([0.7, 0.7]);
    await request(h.app)
      .put(`/v1/apps/${tenant.app_id}/assistants/${assistant.id}`)
      .set(tenant.auth)
      .send({ assistant_config: { ...config, model: MODEL, temperature: 0.2, instructions: 'You are Grace.' } })
      .expect(200);
    sim.reset();
    await ask();
    expect(upstream()).toMatchObject({
      temperature: 0.2,
      messages: [
        { role: 'system', content: 'You are Grace.' },
        { role: 'user', content: 'Hello there' },
      ],
    });
  });

  it('of another Space are refused', async () => {
    const tenant = await h.tenant();
    const other = await h.tenant();
    const foreign = await createAssistant(other, config);
    const res = await complete(tenant, { assistant_id: foreign.id });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'not_found', param: 'assistant_id' });
    expect(sim.requests).toHaveLength(0);
  });
});

describe('conversations', () => {
  it('replay the earlier turns and store the new one', async () => {
    const tenant = await h.tenant();
    await updateSpace(tenant, { settings: { instructions: 'Remember names.' } });
    const conversationId = await createConversation(tenant);

    const first = await complete(tenant, { conversation_id: conversationId, messages: [{ role: 'user', content: 'My name is Ada.' }] });
    expect(first.status).toBe(200);
    expect(first.body.choices[0].message.content).toBe('Echo: My name is Ada.');
    expect(await logOf(tenant, first.body.id)).toMatchObject({ conversation_id: conversationId, status_code: 200 });

    sim.reset();
    const second = await complete(tenant, { conversation_id: conversationId, messages: [{ role: 'user', content: 'What is my name?' }] });
    expect(second.status).toBe(200);
    expect(upstream().messages).toEqual([
      { role: 'system', content: 'Remember names.' },
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: 'Echo: My name is Ada.' },
      { role: 'user', content: 'What is my name?' },
    ]);
    expect(await logOf(tenant, second.body.id)).toMatchObject({ conversation_id: conversationId, prompt: 'What is my name?' });

    sim.reset();
    const third = await complete(tenant, { conversation_id: conversationId, messages: [{ role: 'user', content: 'Thanks.' }] });
    expect(third.status).toBe(200);
    expect(upstream().messages.map((m) => m.content)).toEqual([
      'Remember names.',
      'My name is Ada.',
      'Echo: My name is Ada.',
      'What is my name?',
      'Echo: What is my name?',
      'Thanks.',
    ]);
  });

  it('of another Space or another organization are a 404', async () => {
    const org = `org-${uniqueSuffix()}`;
    const tenant = await h.tenant({ org });
    const sibling = await h.tenant({ org, space: 'second' });
    const stranger = await h.tenant();
    for (const owner of [sibling, stranger]) {
      const conversationId = await createConversation(owner);
      const res = await complete(tenant, { conversation_id: conversationId });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { message: 'Conversation not found', type: 'not_found_error', code: 'not_found', param: 'conversation_id' } });
    }
    expect(sim.requests).toHaveLength(0);
  });

  it('are not replayed from turns logged at privacy level 2, whose text was masked', async () => {
    const tenant = await h.tenant();
    await updateSpace(tenant, { policies: { privacy_level: 2 } });
    const conversationId = await createConversation(tenant);
    const first = await complete(tenant, { conversation_id: conversationId, messages: [{ role: 'user', content: 'My name is Ada.' }] });
    expect(first.status).toBe(200);
    expect(await logOf(tenant, first.body.id)).toMatchObject({
      conversation_id: conversationId,
      privacy_level: 2,
      prompt: '[masked]',
      response_text: '[masked]',
    });

    sim.reset();
    const second = await complete(tenant, { conversation_id: conversationId, messages: [{ role: 'user', content: 'What is my name?' }] });
    expect(second.status).toBe(200);
    expect(upstream().messages).toEqual([{ role: 'user', content: 'What is my name?' }]);
  });

  it('skip a turn the request itself asked to keep at privacy level 2', async () => {
    const tenant = await h.tenant();
    const conversationId = await createConversation(tenant);
    const hidden = await complete(tenant, {
      conversation_id: conversationId,
      messages: [{ role: 'user', content: 'My secret is 42.' }],
      custom_headers: { policies: { privacy_level: 2 } },
    });
    await logOf(tenant, hidden.body.id);
    const open = await complete(tenant, { conversation_id: conversationId, messages: [{ role: 'user', content: 'My name is Ada.' }] });
    await logOf(tenant, open.body.id);

    sim.reset();
    const res = await complete(tenant, { conversation_id: conversationId, messages: [{ role: 'user', content: 'Who am I?' }] });
    expect(res.status).toBe(200);
    expect(upstream().messages.map((m) => m.content)).toEqual(['My name is Ada.', 'Echo: My name is Ada.', 'Who am I?']);
  });
});

describe('feature flags', () => {
  it('smart_learn: the answer says so, and rating its log teaches the Space (one cell per model and kind)', async () => {
    const tenant = await h.tenant();
    const res = await complete(tenant, { model: undefined }, { 'Service-Feature-Flags': '{"smart_learn": "true"}' });
    expect(res.status).toBe(200);
    const { router, candidates } = res.body.metadata.scores;
    expect(router).toMatchObject({ smart_learn: true, explored: false });
    expect(candidates.every((c: { offline_quality: number }) => c.offline_quality > 0 && c.offline_quality < 1)).toBe(true);
    await logOf(tenant, res.body.id);
    const rated = await request(h.app).put(`/v1/logs/${res.body.id}/rating`).set(tenant.auth).send({ good_answer: true });
    expect(rated.status).toBe(200);
    const cells = await h.services.db.routingFeedback.findMany({ where: { app_id: tenant.app_id } });
    expect(cells).toHaveLength(1);
    expect(cells[0]).toMatchObject({ kind: router.kind, ratings: 1, good: 1 });
    const chosen = candidates.find((c: { model: string }) => c.model === res.body.model);
    expect(cells[0].expected).toBeCloseTo(chosen.offline_quality, 4);
  });

  it('are accepted from the Service-Feature-Flags header', async () => {
    const tenant = await h.tenant();
    const res = await complete(tenant, {}, { 'Service-Feature-Flags': '{"auto_tools": "true"}' });
    expect(res.status).toBe(200);
    // The job carries the flags the intake merged to the worker (jobs are kept a while for bull-board).
    const job = await h.services.queues.completions.getJob(res.body.id);
    expect(job?.data.request.flags).toEqual({ auto_tools: true });
  });

  it.each([
    ['not JSON', 'auto_tools=true', 'Service-Feature-Flags must be a JSON object such as {"auto_tools": "true"}.'],
    ['an array', '["auto_tools"]', 'Service-Feature-Flags must be a JSON object such as {"auto_tools": "true"}.'],
    ['a string', '"true"', 'Service-Feature-Flags must be a JSON object such as {"auto_tools": "true"}.'],
    ['a flag that is neither true nor false', '{"auto_tools": "maybe"}', `Feature flag 'auto_tools' must be "true" or "false".`],
  ])('answer 400 naming the header when it is %s', async (_what, header, message) => {
    const tenant = await h.tenant();
    const res = await complete(tenant, {}, { 'Service-Feature-Flags': header });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { message, type: 'invalid_request_error', code: 'invalid_value', param: 'Service-Feature-Flags' } });
    expect(sim.requests).toHaveLength(0);
  });

  it('from the header and from custom_headers.feature_flags merge, the body winning', async () => {
    const tenant = await h.tenant();
    const res = await complete(
      tenant,
      { custom_headers: { feature_flags: { auto_tools: false, smart_learn: true } } },
      { 'Service-Feature-Flags': JSON.stringify({ auto_tools: 'true', citations: 'true' }) },
    );
    expect(res.status).toBe(200);
    const job = await h.services.queues.completions.getJob(res.body.id);
    const data = job?.data as CompletionJob;
    // The intake merged them once: the job carries the result, and the worker's preparation keeps it.
    expect(data.request.flags).toEqual({ auto_tools: false, citations: true, smart_learn: true });
    const space = await new SpaceContextLoader(h.services.db, 0).load(tenant.app_id);
    if (!space) throw new Error('Space not found');
    const prepared = await prepareCompletion({
      request: data.request,
      privacyLevel: data.privacyLevel,
      orgId: data.orgId,
      space,
      sources: new CompletionSources(h.services.db),
      autoModelName: h.services.config.autoModelName,
    });
    expect(prepared.flags).toEqual({ auto_tools: false, citations: true, smart_learn: true });
  });
});

describe('labels', () => {
  it('from custom_headers.labels are echoed in metadata.labels and stored on the log', async () => {
    const tenant = await h.tenant();
    const labels = { team: 'search', experiment: 7, beta: true };
    const res = await complete(tenant, { custom_headers: { labels } });
    expect(res.status).toBe(200);
    expect(res.body.metadata.labels).toEqual(labels);
    expect((await logOf(tenant, res.body.id)).labels).toEqual(labels);
  });

  it('are echoed in the last chunk of a stream too', async () => {
    const tenant = await h.tenant();
    const labels = { team: 'search' };
    const res = await complete(tenant, { stream: true, custom_headers: { labels } });
    expect(res.status).toBe(200);
    const events = res.text
      .split('\n\n')
      .filter((e) => e.startsWith('data: ') && e !== 'data: [DONE]')
      .map((e) => JSON.parse(e.slice(6)));
    expect(events.at(-1).metadata.labels).toEqual(labels);
    expect((await logOf(tenant, events[0].id)).labels).toEqual(labels);
  });
});
