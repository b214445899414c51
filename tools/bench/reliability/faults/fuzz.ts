import fc from 'fast-check';
import type { OpenApiDocument } from '../../../../src/http/openapi/openapi-types';
import type { FuzzJson } from '../../../../test/fuzz/hostile-values';
import { malformedRequests, type FuzzRequest } from '../../../../test/fuzz/malformed-requests';
import { distribution } from '../../stats';
import { errorsOf } from '../process-logs';
import { size, type Fault, type FaultContext } from '../fault';
import { send, type Exchange } from '../http-client';
import { runCount } from '../traffic';

/**
 * Malformed requests against the running service, from the fuzz test's own generators
 * (test/fuzz/malformed-requests.ts) over every operation of its `GET /v1/openapi.json`: bad path ids, bad
 * query values, malformed JSON, wrong types, NUL and lone surrogates, huge and deep values, odd content
 * types and methods, broken `Authorization`. Every answer must be below 500 and, when it is an error, `{"error": {...}}`; every
 * request accepted into the queue must get its log.
 */

/** Fixed, so every run sends the same requests. */
const SEED = 20261123;

/** Known-valid bodies (broken like the schema's own values), so that hostile values reach the queue and the database. */
function examplesFor(appId: string, model: string): Record<string, FuzzJson[]> {
  const messages = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'hi' },
  ];
  return {
    createChatCompletion: [
      { model, messages },
      { messages, stream: true, max_tokens: 50, custom_headers: { labels: { team: 'a', n: 1 } } },
    ],
    createApp: [{ name: 'n', description: 'd', rate_limit: 100, settings: { instructions: 'i', max_tokens: 10 } }],
    updateApp: [{ id: appId, description: 'd', settings: { instructions: 'i' } }],
    createAssistant: [{ name: 'a', assistant_config: { instructions: 'i', model, max_tokens: 10 } }],
  };
}

/**
 * The shared generators leave `Authorization` to the caller: one request in 16 goes with a broken one
 * (none, an empty bearer, another scheme, a key that is not one), the others with the row's key.
 */
const BAD_AUTHORIZATIONS: (string | null)[] = [null, 'Bearer ', 'Basic Zm9vOmJhcg==', 'Bearer sy-%ff'];
function authorization(i: number, apiKey: string): Record<string, string> {
  if (i % 16 !== 15) return { authorization: `Bearer ${apiKey}` };
  const bad = BAD_AUTHORIZATIONS[Math.floor(i / 16) % BAD_AUTHORIZATIONS.length] ?? null;
  return bad === null ? {} : { authorization: bad };
}

/** Each operation's requests in turn, so any prefix of the list covers every operation. */
function interleave(lists: FuzzRequest[][]): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  for (let i = 0; lists.some((list) => i < list.length); i += 1) for (const list of lists) if (i < list.length) out.push(list[i] as FuzzRequest);
  return out;
}

/** An error answer must be `{"error": {"message": string, ...}}`. */
function isErrorShape(body: string): boolean {
  try {
    const error = (JSON.parse(body) as { error?: { message?: unknown } }).error;
    return typeof error === 'object' && error !== null && typeof error.message === 'string';
  } catch {
    return false;
  }
}

async function fuzzRow(ctx: FaultContext) {
  const space = await ctx.createSpace({ row: 'fuzz', models: [{ role: 'healthy', quality: 0.9 }] });
  const model = space.upstreamName.healthy ?? '';
  const apiUrl = ctx.stack.liveApiUrls()[0] ?? '';
  const docResponse = await send({ method: 'GET', url: `${apiUrl}/v1/openapi.json`, timeoutMs: 10_000, maxBody: 10 * 2 ** 20 });
  const document = JSON.parse(docResponse.body) as OpenApiDocument;
  const targets = malformedRequests(document, {
    pathIds: { app_id: [space.appId], model_id: [space.modelId.healthy ?? ''] },
    uuids: [space.appId, ...Object.values(space.modelId)],
    stringsByField: { model: [model] },
    examples: examplesFor(space.appId, model),
  });
  const perOperation = Math.ceil(size(ctx, 3000, 300) / targets.length);
  const requests = interleave(targets.map((target, i) => fc.sample(target.requests, { seed: SEED + i, numRuns: perOperation })));
  const exchanges = await runCount(requests.length, 8, async (i): Promise<Exchange & { fuzz: FuzzRequest }> => {
    const fuzz = requests[i] as FuzzRequest;
    const urls = ctx.stack.liveApiUrls();
    const headers = { ...fuzz.headers, ...authorization(i, space.apiKey) };
    const exchange = await send({ method: fuzz.method, url: `${urls[i % urls.length]}${fuzz.path}`, headers, body: fuzz.body, timeoutMs: 15_000 });
    return { ...exchange, fuzz };
  });
  const answered = exchanges.filter((e) => e.status !== null && e.complete);
  const fiveXx = exchanges.filter((e) => e.status !== null && e.status >= 500);
  const badBodies = answered.filter((e) => (e.status ?? 0) >= 400 && !isErrorShape(e.body));
  const logIds = exchanges.flatMap((e) => (typeof e.headers['x-switchyard-log-id'] === 'string' ? [e.headers['x-switchyard-log-id']] : []));
  const latency = distribution(answered.map((e) => e.latencyMs));
  const worst = [...fiveXx, ...badBodies].map((e) => `${e.fuzz.method} ${e.fuzz.path.slice(0, 60)} → ${e.status}: ${e.body.slice(0, 120)}`);
  // What the service logged for each 5xx: its cause, which the answer rightly does not say.
  const causes = fiveXx
    .flatMap((e) => (typeof e.headers['x-request-id'] === 'string' ? errorsOf(ctx, e.headers['x-request-id']) : []))
    .map((cause) => `logged: ${cause}`);
  return {
    fault: 'fuzz',
    sent: exchanges.length,
    answered: answered.length,
    ok: answered.filter((e) => (e.status ?? 0) < 500 && ((e.status ?? 0) < 400 || isErrorShape(e.body))).length,
    fiveXx: fiveXx.length,
    lostLogs: await ctx.lostLogs(logIds),
    callsPerRequest: null,
    p50Ms: Number.isFinite(latency.p50) ? Number(latency.p50.toFixed(1)) : null,
    p99Ms: Number.isFinite(latency.p99) ? Number(latency.p99.toFixed(1)) : null,
    other: { 'non-error bodies': badBodies.length, 'accepted completions': logIds.length, 'not answered': exchanges.length - answered.length },
    notes: [
      `${requests.length} requests (${perOperation} per operation, seed ${SEED}) over ${targets.length} operations of the OpenAPI document`,
      ...[...new Set(worst)].slice(0, 8),
      ...[...new Set(causes)].slice(0, 4),
      ...[...new Set(exchanges.filter((e) => !e.complete).map((e) => `not answered: ${e.fuzz.method} ${e.fuzz.path.slice(0, 60)}: ${e.error ?? ''}`))].slice(
        0,
        3,
      ),
    ],
  };
}

export const fuzz: Fault = {
  name: 'fuzz',
  summary:
    'Malformed requests (the fuzz test’s generators) over every operation of `GET /v1/openapi.json`: bad path ids, bad query values, malformed JSON, wrong types, NUL, huge and deep values.',
  run: fuzzRow,
};
