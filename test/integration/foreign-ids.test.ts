import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { eventually } from '../helpers/completion-fixtures';
import { setModels, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import type { Tenant } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';

/**
 * Every id a request names in its body belongs to the caller's organization (and Space, where that is the
 * scope), or it answers exactly as an unknown id does: same status, same body. Organization B's key names
 * organization A's ids in each field; a refused completion's log keeps none of them.
 */

let h: CompletionsHarness;
/** The owner of the ids. */
let alice: Tenant;
/** Another Space of alice's organization: Space-scoped ids are foreign to it too. */
let aliceSecond: Tenant;
/** Another organization. */
let bob: Tenant;
let ids: {
  conversation: string;
  assistant: string;
  assistantVersion: string;
  log: string;
  prompt: string;
  batchFile: string;
  response: string;
  responseItem: string;
  customModel: string;
};

function pluginsAllowingLoopback(): Config['plugins'] {
  const base = loadConfig().plugins;
  return { ...base, net: { ...base.net, ssrfAllowedHosts: ['127.0.0.1'] } };
}

const ok = (res: request.Response): Record<string, unknown> => {
  if (res.status !== 200 && res.status !== 201) throw new Error(`answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as Record<string, unknown>;
};

beforeAll(async () => {
  h = startCompletionsHarness({ plugins: pluginsAllowingLoopback(), secrets: { keys: { current: randomBytes(32), previous: [] } } });
  const org = `org-${uniqueSuffix()}`;
  alice = await h.tenant({ org, idpId: `alice@${org}` });
  [aliceSecond, bob] = await Promise.all([h.tenant({ org, space: 'second', idpId: `colleague@${org}` }), h.tenant()]);
  for (const tenant of [alice, aliceSecond, bob]) await setModels(h.app, tenant, { 'test-echo': true });
  const base = `/v1/apps/${alice.app_id}`;
  const assistant = ok(await request(h.app).post(`${base}/assistants`).set(alice.auth).send({ name: 'a' }));
  const conversation = ok(await request(h.app).post(`${base}/conversations/create`).set(alice.auth).send({}));
  const completion = await request(h.app)
    .post('/v1/chat/completions')
    .set(alice.auth)
    .send({ model: 'test-echo', messages: [{ role: 'user', content: 'hi' }] });
  const prompt = ok(await request(h.app).post('/v1/prompts').set(alice.auth).send({ prompt: 'p', title: 't', description: 'd' }));
  const file = ok(
    await request(h.app).post('/v1/files').set(alice.auth).field('purpose', 'batch').attach('file', Buffer.from('{"custom_id":"a"}\n'), 'in.jsonl'),
  );
  const response = ok(await request(h.app).post('/v1/responses').set(alice.auth).send({ model: 'test-echo', input: 'hi' }));
  const model = ok(
    await request(h.app)
      .post('/v1/custom_models')
      .set(alice.auth)
      .send({
        model: `own-${uniqueSuffix()}`,
        provider: 'vllm',
        namespace: 'own/model',
        base_url: 'http://127.0.0.1:9/v1',
        prices: { prompt_per_1m: 1, completion_per_1m: 1 },
        context_window: 1000,
        capabilities: { functions: false, json: false, vision: false, stream: true },
        quality: { overall: 0.5 },
      }),
  );
  ids = {
    conversation: conversation.id as string,
    assistant: assistant.id as string,
    assistantVersion: assistant.version_id as string,
    log: String(completion.headers['x-switchyard-log-id']),
    prompt: prompt.id as string,
    batchFile: file.id as string,
    response: response.id as string,
    responseItem: (response.output as { id: string }[])[0]?.id as string,
    customModel: model.id as string,
  };
}, 60_000);
afterAll(() => h.close());

const chat = (tenant: Tenant, extra: Record<string, unknown>) =>
  request(h.app)
    .post('/v1/chat/completions')
    .set(tenant.auth)
    .send({ model: 'test-echo', messages: [{ role: 'user', content: 'hi' }], ...extra });

/** The answer with the foreign id, and with an unknown id of the same form in its place. */
async function foreignAndUnknown(send: (id: string) => Promise<request.Response>, foreign: string, unknown: string = randomUUID()) {
  const [withForeign, withUnknown] = [await send(foreign), await send(unknown)];
  return { withForeign, withUnknown, unknown };
}

describe('chat completions', () => {
  const fields: [string, () => string, () => Record<string, unknown>][] = [
    ['conversation_id', () => ids.conversation, () => ({})],
    ['parent_request_id', () => ids.log, () => ({})],
    ['assistant_id', () => ids.assistant, () => ({})],
    ['assistant_version_id', () => ids.assistantVersion, () => ({})],
  ];

  it.each(fields)("answers another organization's %s exactly as an unknown one (404), and its log keeps neither", async (field, foreignId) => {
    const { withForeign, withUnknown } = await foreignAndUnknown((id) => chat(bob, { [field]: id }), foreignId());
    expect(withForeign.status).toBe(404);
    expect(withForeign.body).toEqual(withUnknown.body);
    expect(withForeign.body.error).toMatchObject({ code: 'not_found', type: 'not_found_error', param: field });
    for (const res of [withForeign, withUnknown]) {
      const log = await eventually(() => h.services.db.log.findUnique({ where: { id: String(res.headers['x-switchyard-log-id']) } }));
      expect(log).toMatchObject({ org_id: bob.org_id, status_code: 404, conversation_id: null, parent_request_id: null });
      expect(JSON.stringify(log.payload)).not.toContain(foreignId());
      expect(log.payload).not.toHaveProperty(field);
    }
  });

  it('answers Space-scoped ids of another Space of the same organization as unknown; a request of the organization may be the parent', async () => {
    for (const [field, id] of [
      ['conversation_id', ids.conversation],
      ['assistant_id', ids.assistant],
    ] as const) {
      const res = await chat(aliceSecond, { [field]: id });
      expect(res.status).toBe(404);
      expect(res.body.error.param).toBe(field);
    }
    const child = await chat(aliceSecond, { parent_request_id: ids.log });
    expect(child.status).toBe(200);
    const log = await eventually(() => h.services.db.log.findUnique({ where: { id: String(child.headers['x-switchyard-log-id']) } }));
    expect(log.parent_request_id).toBe(ids.log);
  });

  it('stores the ids of a request that names its own', async () => {
    const res = await chat(alice, { conversation_id: ids.conversation, parent_request_id: ids.log, assistant_id: ids.assistant });
    expect(res.status).toBe(200);
    const log = await eventually(() => h.services.db.log.findUnique({ where: { id: String(res.headers['x-switchyard-log-id']) } }));
    expect(log).toMatchObject({ conversation_id: ids.conversation, parent_request_id: ids.log });
  });

  it('runs the same checks for an async job (Prefer: respond-async)', async () => {
    const accepted = await chat(bob, { conversation_id: ids.conversation }).set('Prefer', 'respond-async');
    expect(accepted.status).toBe(202);
    const job = await eventually(async () => {
      const read = await request(h.app).get(`/v1/jobs/${accepted.body.id}`).set(bob.auth);
      return read.body.status === 'failed' ? read.body : null;
    });
    expect(JSON.stringify(job)).toContain('not_found');
  });
});

/** Other requests that name ids in their body: the foreign id's answer is the unknown id's, body included (the id's text aside). */
describe('other requests naming ids', () => {
  const cases: [string, (id: string) => request.Test, () => string][] = [
    [
      'Responses previous_response_id',
      (id) => request(h.app).post('/v1/responses').set(bob.auth).send({ model: 'test-echo', input: 'hi', previous_response_id: id }),
      () => ids.response,
    ],
    [
      'Responses item_reference',
      (id) =>
        request(h.app)
          .post('/v1/responses')
          .set(bob.auth)
          .send({
            model: 'test-echo',
            input: [
              { type: 'item_reference', id },
              { role: 'user', content: 'more' },
            ],
          }),
      () => ids.responseItem,
    ],
    [
      'batch input_file_id',
      (id) => request(h.app).post('/v1/batches').set(bob.auth).send({ input_file_id: id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
      () => ids.batchFile,
    ],
    ['prompt update id', (id) => request(h.app).put('/v1/prompts').set(bob.auth).send({ id, prompt: 'x', title: 't', description: 'd' }), () => ids.prompt],
    [
      'assistant prompt_id',
      (id) => request(h.app).post(`/v1/apps/${bob.app_id}/assistants`).set(bob.auth).send({ name: 'b', prompt_id: id }),
      () => ids.prompt,
    ],
    [
      'conversation settings.assistant_id',
      (id) =>
        request(h.app)
          .post(`/v1/apps/${bob.app_id}/conversations/create`)
          .set(bob.auth)
          .send({ settings: { assistant_id: id } }),
      () => ids.assistant,
    ],
    [
      'Space settings.assistant_id',
      (id) =>
        request(h.app)
          .put('/v1/apps/update')
          .set(bob.auth)
          .send({ id: bob.app_id, settings: { assistant_id: id } }),
      () => ids.assistant,
    ],
    [
      'Space policies.prompt_id',
      (id) =>
        request(h.app)
          .put('/v1/apps/update')
          .set(bob.auth)
          .send({ id: bob.app_id, policies: { prompt_id: id } }),
      () => ids.prompt,
    ],
    [
      'Space benchmark_model_id',
      (id) => request(h.app).put('/v1/apps/update').set(bob.auth).send({ id: bob.app_id, benchmark_model_id: id }),
      () => ids.customModel,
    ],
    [
      'failover model_ids',
      (id) =>
        request(h.app)
          .put(`/v1/apps/${bob.app_id}/failover`)
          .set(bob.auth)
          .send({ model_ids: [id] }),
      () => ids.customModel,
    ],
  ];

  it.each(cases)('%s', async (_name, send, foreignId) => {
    const { withForeign, withUnknown, unknown } = await foreignAndUnknown(
      (id) => send(id),
      foreignId(),
      foreignId().startsWith('resp_') ? `resp_${randomBytes(16).toString('hex')}` : undefined,
    );
    expect(withForeign.status).toBeGreaterThanOrEqual(400);
    expect(withForeign.status).toBeLessThan(500);
    expect(withForeign.status).toBe(withUnknown.status);
    expect(JSON.stringify(withForeign.body).replaceAll(foreignId(), 'ID')).toBe(JSON.stringify(withUnknown.body).replaceAll(unknown, 'ID'));
  });
});
