import { logResponseView } from '../../src/services/logs/log-response';
import { stepsOf } from '../../src/services/logs/log-steps';
import type { Express } from 'express';
import request from 'supertest';
import type { Log, Model } from '../../src/generated/prisma/client';
import type { Behaviour } from '../simulator/behaviour';
import type { RecordedRequest, Simulator } from '../simulator/server';
import type { CompletionsHarness } from './completions';
import type { Tenant } from './test-context';
import { uniqueSuffix } from './test-database';

/** A custom model of the tenant's organization, served by the simulator's OpenAI dialect. */
export interface ModelSpec<N extends string = string> {
  /** Also the prefix of the upstream name, made unique so the model can be scripted on its own. */
  name: N;
  /** Upstream name; defaults to a unique one that answers normally unless scripted (`sim-503` etc. fail by name). */
  namespace?: string;
  /** Catalog quality: with the Space weighted on quality alone, the higher one ranks first. */
  quality?: number;
  /** USD per prompt token. */
  promptCost?: number;
  /** USD per completion token. */
  completionCost?: number;
  /** Processed under GDPR terms: privacy level 3 routes only to such models. */
  gdpr?: boolean;
}

export interface SpaceSetup<N extends string = string> {
  models: ModelSpec<N>[];
  /** Extra body of `PUT /v1/apps/update` (policies, has_failover_chain, benchmark_model_id, ...). */
  update?: Record<string, unknown>;
  /** Names of models for the failover chain, in order. */
  chain?: N[];
  /** Name of the model (of `models`) to set as the Space's benchmark. */
  benchmark?: N;
}

export interface IsolatedSpace<N extends string = string> {
  tenant: Tenant;
  /** The created rows by spec name. */
  models: Record<N, Model>;
}

/**
 * A fresh organization whose Space has only the given custom models active, ranked by quality alone,
 * configured before its first completion (the API and the worker cache a Space for a couple of seconds).
 */
export async function isolatedSpace<N extends string>(h: CompletionsHarness, setup: SpaceSetup<N>): Promise<IsolatedSpace<N>> {
  const tenant = await h.tenant();
  const db = h.services.db;
  await db.appModel.updateMany({ where: { app_id: tenant.app_id }, data: { active: false } });
  const models = {} as Record<N, Model>;
  for (const spec of setup.models) {
    const row = await db.model.create({
      data: {
        model: spec.name,
        provider: 'openai',
        namespace: spec.namespace ?? `${spec.name}-${uniqueSuffix()}`,
        org_id: tenant.org_id,
        prompt_token_cost: spec.promptCost ?? 1e-6,
        completion_token_cost: spec.completionCost ?? 2e-6,
        context_window: 128_000,
        is_gdpr: spec.gdpr ?? false,
        supports_functions: true,
        supports_json: true,
        quality_profile: { overall: spec.quality ?? 0.8, categories: {} },
      },
    });
    await db.appModel.create({ data: { app_id: tenant.app_id, model_id: row.id, active: true } });
    models[spec.name] = row;
  }
  const update: Record<string, unknown> = { id: tenant.app_id, weights: { quality: 1, cost: 0, latency: 0 }, ...setup.update };
  if (setup.benchmark) update.benchmark_model_id = models[setup.benchmark].id;
  await request(h.app).put('/v1/apps/update').set(tenant.auth).send(update).expect(200);
  if (setup.chain) {
    const ids = setup.chain.map((name) => models[name].id);
    await request(h.app).put(`/v1/apps/${tenant.app_id}/failover`).set(tenant.auth).send({ model_ids: ids }).expect(200);
  }
  return { tenant, models };
}

/** Scripts a model's next upstream answers by its upstream name. */
export function script(sim: Simulator, model: Model, behaviours: Behaviour[]): void {
  sim.script(model.namespace, behaviours);
}

export const times = (count: number, behaviour: Behaviour): Behaviour[] => Array.from({ length: count }, () => behaviour);

/** What reached the simulator for this model. */
export function callsTo(sim: Simulator, model: Model): RecordedRequest[] {
  return sim.requests.filter((r) => (r.body as { model?: string } | undefined)?.model === model.namespace);
}

export const userMessage = (content: string) => [{ role: 'user', content }];

/** A non-streaming completion. */
export function complete(h: { app: Express }, tenant: Tenant, body: object) {
  return request(h.app)
    .post('/v1/chat/completions')
    .set(tenant.auth)
    .send({ stream: false, ...body });
}

/** A streaming completion, its body read as raw text whatever the content type (`res.text`). */
export async function completeStream(h: { app: Express }, tenant: Tenant, body: object): Promise<{ status: number; type: string; text: string }> {
  const res = await request(h.app)
    .post('/v1/chat/completions')
    .set(tenant.auth)
    .send({ ...body, stream: true })
    .buffer(true)
    .parse((response, done) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => done(null, text));
    });
  return { status: res.status, type: String(res.headers['content-type']), text: res.body as string };
}

/** The `data:` payloads of an SSE body, in order (`[DONE]` kept as is). */
export function sseData(text: string): string[] {
  return text
    .split('\n\n')
    .map((event) => event.trim())
    .filter((event) => event.startsWith('data: '))
    .map((event) => event.slice('data: '.length));
}

/** The parsed JSON events of an SSE body, without `[DONE]`. */
export function sseEvents(text: string): Record<string, unknown>[] {
  return sseData(text)
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data) as Record<string, unknown>);
}

/** The steps a stream reported as SSE comments (`: step {...}`), in order. */
export function sseSteps(text: string): { kind: string; name: string; status: string }[] {
  return text
    .split('\n\n')
    .map((event) => event.trim())
    .filter((event) => event.startsWith(': step '))
    .map((event) => JSON.parse(event.slice(': step '.length)) as { kind: string; name: string; status: string });
}

/** The item at `index`, failing the test when there is none. */
export function nth<T>(items: readonly T[], index: number): T {
  const item = items.at(index);
  if (item === undefined) throw new Error(`no item ${index} among ${items.length}`);
  return item;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * How long `eventually` polls by default, in ms: a failsafe, not the time the outcome takes (milliseconds
 * to a second or two here). Generous enough for a machine twice as slow whose event loop is held for
 * seconds at a time (a cold transform cache compiling modules, long garbage collections beside other
 * suites), and still under jest's 30 s per test, so a miss fails with this helper's message.
 */
export const EVENTUALLY_MS = 20_000;

/**
 * Polls until `read` returns something other than null/undefined, or fails after `timeoutMs`. A wait ends on
 * its outcome: a `read` that sees the outcome it waits for will never come (a job that failed, a request
 * answered before the step awaited) throws, and fails the test at once with what it saw.
 */
export async function eventually<T>(read: () => Promise<T | null | undefined> | T | null | undefined, timeoutMs = EVENTUALLY_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing after ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** A job's state once it has left `active`: the log commits before the job settles, so the state follows a moment later. */
export async function settledStateOf(queue: { getJobState(id: string): Promise<string> }, id: string): Promise<string> {
  return eventually(async () => {
    const state = await queue.getJobState(id);
    return state === 'active' || state === 'waiting' ? undefined : state;
  });
}

export interface RequestLogs {
  parent: Log;
  /**
   * One per step (upstream call or plugin run), in the order they were made, as the logs API lists them:
   * the child rows, or a request's only model call, which its own row keeps (see `stepsOf`).
   */
  children: Log[];
}

/**
 * A request's log and its steps, once written (they are written together, right after the reply); the
 * parent's `response` in the wire format the logs API shows (the row stores the worker's shape).
 */
export async function logsOf(h: CompletionsHarness, requestId: string): Promise<RequestLogs> {
  const parent = await eventually(() => h.services.db.log.findUnique({ where: { id: requestId } }));
  const children = await h.services.db.log.findMany({ where: { parent_id: requestId }, orderBy: { timestamp: 'asc' } });
  return { parent: { ...parent, response: logResponseView(parent) as typeof parent.response }, children: stepsOf(parent, children) };
}

/** The request id of a completion that failed (its error body carries none): the only log of the Space. */
export async function onlyLogOf(h: CompletionsHarness, tenant: Tenant): Promise<RequestLogs> {
  const parent = await eventually(() => h.services.db.log.findFirst({ where: { app_id: tenant.app_id, parent_id: null } }));
  expect(await h.services.db.log.count({ where: { app_id: tenant.app_id, parent_id: null } })).toBe(1);
  return logsOf(h, parent.id);
}
