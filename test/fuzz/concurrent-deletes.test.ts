import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import type { OpenApiDocument } from '../../src/http/openapi/openapi-types';
import { setModels, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import type { Tenant } from '../helpers/test-context';

/**
 * Every DELETE operation of the OpenAPI document, sent six times at once for one fresh resource: exactly
 * one succeeds and the other five answer the 404 of an unknown id (the row vanished under them), never a
 * 5xx. Each run creates its resource through the API; an operation with no creator here fails the test,
 * so a new DELETE route cannot skip it. A key is revoked, not removed (it stays listed, revoked): the
 * losers get what a second revocation gets, 409 `conflict`.
 */
const CONCURRENT = 6;
/** Rounds per operation: a race that loses only sometimes still shows. */
const ROUNDS = Number(process.env.RACE_ROUNDS ?? 5);

let harness: CompletionsHarness;
let tenant: Tenant;
let document: OpenApiDocument;

/** Custom models are served at a base URL that must pass the SSRF check: 127.0.0.1 is allowed here, as an operator would. */
function pluginsAllowingLoopback(): Config['plugins'] {
  const base = loadConfig().plugins;
  return { ...base, net: { ...base.net, ssrfAllowedHosts: ['127.0.0.1'] } };
}

type Creator = () => Promise<Record<string, string>>;

const created = (res: request.Response): string => {
  if (res.status !== 200 && res.status !== 201) throw new Error(`create answered ${res.status}: ${JSON.stringify(res.body)}`);
  return (res.body as { id: string }).id;
};

/** For each DELETE path, a fresh resource's path parameters. */
const creators: Record<string, Creator> = {
  '/v1/apps/{app_id}/conversations/{conversation_id}': async () => ({
    app_id: tenant.app_id,
    conversation_id: created(await request(harness.app).post(`/v1/apps/${tenant.app_id}/conversations/create`).set(tenant.auth).send({})),
  }),
  '/v1/custom_models/{model_id}': async () => ({
    model_id: created(
      await request(harness.app)
        .post('/v1/custom_models')
        .set(tenant.auth)
        .send({
          model: `race-${randomBytes(6).toString('hex')}`,
          provider: 'vllm',
          namespace: 'race/model',
          base_url: 'http://127.0.0.1:9/v1',
          prices: { prompt_per_1m: 1, completion_per_1m: 1 },
          context_window: 1000,
          capabilities: { functions: false, json: false, vision: false, stream: true },
          quality: { overall: 0.5 },
        }),
    ),
  }),
  '/v1/files/{file_id}': async () => ({
    file_id: created(
      await request(harness.app).post('/v1/files').set(tenant.auth).field('purpose', 'batch').attach('file', Buffer.from('{"custom_id":"a"}\n'), 'in.jsonl'),
    ),
  }),
  '/v1/apps/{app_id}/files/{file_id}': async () => ({
    app_id: tenant.app_id,
    file_id: created(await request(harness.app).post(`/v1/apps/${tenant.app_id}/files`).set(tenant.auth).attach('file', Buffer.from('some text'), 'a.txt')),
  }),
  '/v1/keys/{key_id}': async () => ({
    key_id: created(
      await request(harness.app)
        .post('/v1/keys')
        .set(tenant.auth)
        .send({ name: `race-${randomBytes(6).toString('hex')}` }),
    ),
  }),
  '/v1/responses/{response_id}': async () => ({
    response_id: created(await request(harness.app).post('/v1/responses').set(tenant.auth).send({ model: 'test-echo', input: 'hi' })),
  }),
};

beforeAll(async () => {
  harness = startCompletionsHarness({ plugins: pluginsAllowingLoopback(), secrets: { keys: { current: randomBytes(32), previous: [] } } });
  tenant = await harness.tenant();
  await setModels(harness.app, tenant, { 'test-echo': true });
  document = (await request(harness.app).get('/v1/openapi.json').expect(200)).body as OpenApiDocument;
}, 60_000);
afterAll(() => harness.close());

/** What a DELETE of a resource already deleted answers, where it is not the 404 of an unknown id. */
const AFTER_DELETE: Record<string, { status: number; code: string }> = { '/v1/keys/{key_id}': { status: 409, code: 'conflict' } };

const deletePaths = (): string[] => Object.entries(document.paths).flatMap(([path, item]) => ('delete' in item ? [path] : []));

it('has a creator for every DELETE operation of the OpenAPI document', () => {
  expect(deletePaths().sort()).toEqual(Object.keys(creators).sort());
});

it(`answers ${CONCURRENT} concurrent deletes of one resource with one success and ${CONCURRENT - 1} 404s, never a 5xx`, async () => {
  const failures: string[] = [];
  for (const path of deletePaths()) {
    const create = creators[path];
    if (!create) continue;
    for (let round = 0; round < ROUNDS; round += 1) {
      const params = await create();
      const filled = path.replace(/\{([^}]+)\}/g, (_whole, name: string) => params[name] ?? '');
      const answers = await Promise.all(Array.from({ length: CONCURRENT }, () => request(harness.app).delete(filled).set(tenant.auth)));
      const statuses = answers.map((res) => res.status).sort();
      const lastParam = [...path.matchAll(/\{([^}]+)\}/g)].at(-1)?.[1];
      const after = AFTER_DELETE[path] ?? { status: 404, code: 'not_found' };
      const notFound = answers.filter((res) => res.status === after.status);
      const expected = [200, ...Array.from({ length: CONCURRENT - 1 }, () => after.status)].sort();
      if (JSON.stringify(statuses) !== JSON.stringify(expected))
        failures.push(`DELETE ${path}: ${statuses.join(',')} ${JSON.stringify(answers.find((res) => res.status >= 500)?.body ?? '')}`);
      // The losers' 404 is exactly an unknown id's.
      const unknown = await request(harness.app).delete(filled).set(tenant.auth);
      for (const res of notFound) {
        if (JSON.stringify(res.body) !== JSON.stringify(unknown.body))
          failures.push(`DELETE ${path}: ${JSON.stringify(res.body)} is not ${JSON.stringify(unknown.body)}`);
      }
      expect(unknown.body.error).toMatchObject({ code: after.code, param: lastParam });
    }
  }
  expect(failures).toEqual([]);
}, 120_000);

/** Writes that name a row another request deletes at the same moment: each answers as if it came just before (2xx) or just after (404). */
describe('writes racing a delete', () => {
  const race = async (del: () => request.Test, writes: (() => request.Test)[]): Promise<number[]> => {
    const answers = await Promise.all([del(), ...writes.map((write) => write())]);
    const failed = answers.filter((res) => res.status >= 500 || (res.status >= 300 && res.status !== 404 && res.status !== 400));
    if (failed.length > 0) throw new Error(`answered ${failed.map((res) => `${res.status} ${JSON.stringify(res.body)}`).join('; ')}`);
    return answers.map((res) => res.status);
  };
  const writers = <T>(count: number, make: (i: number) => T): T[] => Array.from({ length: count }, (_unused, i) => make(i));

  it('custom model: PATCH, switching it on in a Space and naming it in the failover chain, while it is deleted', async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const { model_id } = await (creators['/v1/custom_models/{model_id}'] as Creator)();
      const path = `/v1/custom_models/${model_id}`;
      await race(
        () => request(harness.app).delete(path).set(tenant.auth),
        [
          ...writers(
            3,
            (i) => () =>
              request(harness.app)
                .patch(path)
                .set(tenant.auth)
                .send({ description: `d${i}` }),
          ),
          ...writers(2, () => () => request(harness.app).put(`/v1/apps/${tenant.app_id}/models/${model_id}`).set(tenant.auth).send({ active: true })),
        ],
      );
      // The chain names only active models: switch a fresh one on, then race the chain's PUT with its delete.
      const chained = (await (creators['/v1/custom_models/{model_id}'] as Creator)()).model_id as string;
      await request(harness.app).put(`/v1/apps/${tenant.app_id}/models/${chained}`).set(tenant.auth).send({ active: true }).expect(200);
      const statuses = await race(
        () => request(harness.app).delete(`/v1/custom_models/${chained}`).set(tenant.auth),
        writers(
          2,
          () => () =>
            request(harness.app)
              .put(`/v1/apps/${tenant.app_id}/failover`)
              .set(tenant.auth)
              .send({ model_ids: [chained] }),
        ),
      );
      // A chain written before the delete loses the model with it; one written after names a model that is gone (400).
      expect(statuses.slice(1).every((status) => status === 200 || status === 400)).toBe(true);
    }
  });

  it('batch: created from an input file while the file is deleted', async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const line = JSON.stringify({
        custom_id: 'a',
        method: 'POST',
        url: '/v1/chat/completions',
        body: { model: 'test-echo', messages: [{ role: 'user', content: 'x' }] },
      });
      const upload = await request(harness.app)
        .post('/v1/files')
        .set(tenant.auth)
        .field('purpose', 'batch')
        .attach('file', Buffer.from(`${line}\n`), 'in.jsonl');
      const fileId = created(upload);
      await race(
        () => request(harness.app).delete(`/v1/files/${fileId}`).set(tenant.auth),
        writers(
          3,
          () => () =>
            request(harness.app)
              .post('/v1/batches')
              .set(tenant.auth)
              .send({ input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' }),
        ),
      );
    }
  });

  it('conversation: a completion continuing it while it is deleted', async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const { conversation_id } = await (creators['/v1/apps/{app_id}/conversations/{conversation_id}'] as Creator)();
      await race(
        () => request(harness.app).delete(`/v1/apps/${tenant.app_id}/conversations/${conversation_id}`).set(tenant.auth),
        writers(
          3,
          () => () =>
            request(harness.app)
              .post('/v1/chat/completions')
              .set(tenant.auth)
              .send({ model: 'test-echo', conversation_id, messages: [{ role: 'user', content: 'hi' }] }),
        ),
      );
    }
  });
});

/** Cancels are documented idempotent (docs/batches.md, docs/async-jobs.md): concurrent ones all answer alike, never a 5xx. */
describe('concurrent cancels', () => {
  const cancelAll = async (path: string): Promise<request.Response[]> => {
    const answers = await Promise.all(Array.from({ length: CONCURRENT }, () => request(harness.app).post(path).set(tenant.auth).send({})));
    expect(answers.filter((res) => res.status >= 500).map((res) => JSON.stringify(res.body))).toEqual([]);
    return answers;
  };

  it('batch: every cancel answers alike (200, or 409 for a batch that ended first)', async () => {
    const line = JSON.stringify({
      custom_id: 'a',
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model: 'test-echo', messages: [{ role: 'user', content: 'x' }] },
    });
    const fileId = created(
      await request(harness.app)
        .post('/v1/files')
        .set(tenant.auth)
        .field('purpose', 'batch')
        .attach('file', Buffer.from(`${line}\n`), 'in.jsonl'),
    );
    const batch = await request(harness.app)
      .post('/v1/batches')
      .set(tenant.auth)
      .send({ input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const answers = await cancelAll(`/v1/batches/${created(batch)}/cancel`);
    // A batch that ended before the first cancel answers 409 to each, as documented.
    expect(new Set(answers.map((res) => res.status)).size).toBe(1);
  });

  it('async job: no cancel answers a 5xx (a job may end between two: 200, then 409)', async () => {
    const accepted = await request(harness.app)
      .post('/v1/chat/completions')
      .set(tenant.auth)
      .set('Prefer', 'respond-async')
      .send({ model: 'test-echo', messages: [{ role: 'user', content: 'x' }] });
    expect(accepted.status).toBe(202);
    await cancelAll(`/v1/jobs/${accepted.body.id as string}/cancel`);
  });
});
