import { randomUUID } from 'node:crypto';
import { size, type Fault, type FaultContext } from '../fault';
import { send, type Exchange } from '../http-client';
import { distribution } from '../../stats';
import { seededRandom } from '../seeded-random';
import { runCount } from '../traffic';

/**
 * Malformed requests against the running service, built from its own `GET /v1/openapi.json`: bad path ids
 * (invalid percent-encoding, NUL, huge), bad query values, malformed JSON, and for every body field wrong
 * types, NUL and lone surrogates, out-of-range and huge numbers, deep nesting. Every answer must be below
 * 500 and, when it is an error, `{"error": {...}}`; every request accepted into the queue must get its log.
 *
 * Self-contained on purpose: the shared fast-check generators of the fuzz test replace `casesFor` when
 * they land, and nothing else in the suite depends on this file's internals.
 */

type Schema = { $ref?: string; type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; items?: Schema; enum?: unknown[]; format?: string; oneOf?: Schema[]; anyOf?: Schema[]; minimum?: number; minItems?: number; const?: unknown };
interface Operation {
  parameters?: { name: string; in: string; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

/** One malformed request: what to send, and a short name of the mutation for the notes. */
interface FuzzCase {
  method: string;
  path: string;
  body?: string;
  contentType?: string;
  auth?: string | null;
  what: string;
}

const BAD_IDS = ['%C0%AF', '%ff', '%ff%fe', '%00', 'a%00b', '%E2%80%AE', 'not-a-uuid', '00000000-0000-0000-0000-000000000000', 'x'.repeat(4000), '..%2F..%2Fetc%2Fpasswd', '%27%3B%20DROP%20TABLE%20logs%3B--', '-1', '1e999'];
const BAD_QUERY = ['abc', '-1', '0', '1e309', '99999999999999999999', '%ff', '%00', '', '1.5', '[]', 'x'.repeat(2000)];
const RAW_BODIES = ['{', '{"a":', '[', 'null', '[]', '"text"', '123', '{"a":1}}', '\u0000', '{"\u0000":1}', '\ufeff{}', '['.repeat(5000), `{"a":${'['.repeat(3000)}`, '{"id":1e99999}', '{"__proto__":{"admin":true}}'];
const deep = (depth: number): unknown => (depth === 0 ? 'bottom' : { d: deep(depth - 1) });
const WRONG_VALUES: [string, unknown][] = [
  ['null', null], ['true', true], ['zero', 0], ['-1', -1], ['2^31', 2147483648], ['2^63', 2 ** 63], ['1e308', 1e308], ['-1e308', -1e308], ['1.5', 1.5],
  ['empty string', ''], ['NUL', '\u0000'], ['NUL inside', 'a\u0000b'], ['lone surrogate', '\ud800'], ['RTL override', '\u202e'], ['100k chars', 'x'.repeat(100_000)],
  ['empty array', []], ['empty object', {}], ['array of NUL', ['\u0000']], ['deep object', deep(200)], ['bad uuid', '%ff'], ['__proto__ key', JSON.parse('{"__proto__":{"polluted":true}}') as unknown],
];

function resolve(doc: OpenApi, schema: Schema | undefined, depth = 0): Schema {
  if (!schema || depth > 20) return {};
  if (schema.$ref) return resolve(doc, doc.components?.schemas?.[schema.$ref.split('/').pop() ?? ''], depth + 1);
  return schema;
}

/** A plausible value for a schema (required fields only), so a mutation of one field gets past the others. */
function plausible(doc: OpenApi, raw: Schema | undefined, where: { appId: string; depth?: number }): unknown {
  const schema = resolve(doc, raw);
  const depth = where.depth ?? 0;
  if (depth > 6) return null;
  const ids = { appId: where.appId, depth: depth + 1 };
  const variant = schema.oneOf?.[0] ?? schema.anyOf?.[0];
  if (variant) return plausible(doc, variant, ids);
  if (schema.const !== undefined) return schema.const;
  // A chat message must come from the user and have content to be accepted: prefer that where offered.
  if (schema.enum) return schema.enum.includes('user') ? 'user' : schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const wanted = [...(schema.required ?? []), ...(schema.properties?.content && !schema.required?.includes('content') ? ['content'] : [])];
      for (const name of wanted) out[name] = plausible(doc, schema.properties?.[name], ids);
      return out;
    }
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 0) }, () => plausible(doc, schema.items, ids));
    case 'string':
      return schema.format === 'uuid' ? ids.appId : 'user';
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    default:
      return 'hi';
  }
}

/** Every field of the body (top level, and one level into objects and arrays of objects), each set to each wrong value. */
function bodyMutations(doc: OpenApi, schema: Schema, base: Record<string, unknown>): { body: unknown; what: string }[] {
  const out: { body: unknown; what: string }[] = [];
  for (const [name, propRaw] of Object.entries(schema.properties ?? {})) {
    for (const [label, value] of WRONG_VALUES) out.push({ body: { ...base, [name]: value }, what: `${name}=${label}` });
    const prop = resolve(doc, propRaw);
    const inner = resolve(doc, prop.items ?? prop);
    const innerBase = plausible(doc, inner, { appId: '' });
    if (!inner.properties || typeof innerBase !== 'object' || innerBase === null) continue;
    for (const innerName of Object.keys(inner.properties)) {
      for (const [label, value] of WRONG_VALUES.filter(([l]) => ['NUL', 'NUL inside', 'lone surrogate', '2^31', 'deep object', 'null'].includes(l))) {
        const nested = { ...(innerBase as Record<string, unknown>), [innerName]: value };
        out.push({ body: { ...base, [name]: prop.items ? [nested] : nested }, what: `${name}.${innerName}=${label}` });
      }
    }
  }
  return out;
}

/** The malformed requests for one operation of the document. */
function casesFor(doc: OpenApi, route: { path: string; method: string; op: Operation }, ids: { appId: string }): FuzzCase[] {
  const params = route.op.parameters ?? [];
  const pathWith = (values: Record<string, string>) => route.path.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? (name === 'app_id' ? ids.appId : randomUUID()));
  const cases: FuzzCase[] = [];
  const method = route.method.toUpperCase();
  for (const param of params.filter((p) => p.in === 'path')) {
    for (const bad of BAD_IDS) cases.push({ method, path: pathWith({ [param.name]: bad }), what: `path ${param.name}=${bad.slice(0, 20)}` });
  }
  for (const param of params.filter((p) => p.in === 'query')) {
    for (const bad of BAD_QUERY) cases.push({ method, path: `${pathWith({})}?${param.name}=${bad}`, what: `query ${param.name}=${bad.slice(0, 20)}` });
  }
  const bodySchema = resolve(doc, route.op.requestBody?.content?.['application/json']?.schema);
  if (route.op.requestBody) {
    const base = (plausible(doc, bodySchema, ids) ?? {}) as Record<string, unknown>;
    for (const raw of RAW_BODIES) cases.push({ method, path: pathWith({}), body: raw, what: `raw body ${JSON.stringify(raw.slice(0, 12))}` });
    cases.push({ method, path: pathWith({}), body: JSON.stringify(base), contentType: 'text/plain', what: 'text/plain body' });
    for (const mutation of bodyMutations(doc, bodySchema, base)) cases.push({ method, path: pathWith({}), body: JSON.stringify(mutation.body), what: mutation.what });
  }
  for (const auth of [null, 'Bearer ', 'Basic Zm9vOmJhcg==', 'Bearer sy-%ff']) cases.push({ method, path: pathWith({}), auth, what: `authorization ${String(auth)}` });
  return cases;
}

/** Fisher–Yates with a seeded draw, so every run sends the same requests. */
function shuffled<T>(items: T[], seed: number): T[] {
  const random = seededRandom(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/**
 * Inputs that made 500s or lost logs before (invalid percent-encoding in a path id, NUL in a model name, a
 * message or a stored text, 2^31 in an integer): a short run sends them first.
 */
const KNOWN_OFFENDERS = /^path \w+=(%ff|%C0)|^(model|messages\.content|name|title|prompt|description)=NUL|=2\^31$/;
const firstKnownOffenders = (cases: FuzzCase[]) => [...cases.filter((c) => KNOWN_OFFENDERS.test(c.what)), ...cases.filter((c) => !KNOWN_OFFENDERS.test(c.what))];

/** Routes' cases (each route's shuffled) interleaved, so any prefix of the list covers every route and every kind of case. */
function interleave(lists: FuzzCase[][]): FuzzCase[] {
  const out: FuzzCase[] = [];
  for (let i = 0; lists.some((l) => i < l.length); i += 1) for (const list of lists) if (i < list.length) out.push(list[i] as FuzzCase);
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
  const apiUrl = ctx.stack.liveApiUrls()[0] ?? '';
  const docResponse = await send({ method: 'GET', url: `${apiUrl}/v1/openapi.json`, timeoutMs: 10_000, maxBody: 10 * 2 ** 20 });
  const doc = JSON.parse(docResponse.body) as OpenApi;
  const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, op]) => ({ path, method, op })),
  );
  const all = interleave(routes.map((route, i) => firstKnownOffenders(shuffled(casesFor(doc, route, { appId: space.appId }), i + 1))));
  const cases = all.slice(0, size(ctx, all.length, 300));
  const exchanges = await runCount(cases.length, 8, async (i): Promise<Exchange & { fuzz: FuzzCase }> => {
    const fuzz = cases[i] as FuzzCase;
    const urls = ctx.stack.liveApiUrls();
    const headers: Record<string, string> = fuzz.auth === null ? {} : { authorization: fuzz.auth ?? `Bearer ${space.apiKey}` };
    if (fuzz.body !== undefined) headers['content-type'] = fuzz.contentType ?? 'application/json';
    const exchange = await send({ method: fuzz.method, url: `${urls[i % urls.length]}${fuzz.path}`, headers, body: fuzz.body, timeoutMs: 15_000 });
    return { ...exchange, fuzz };
  });
  const answered = exchanges.filter((e) => e.status !== null && e.complete);
  const fiveXx = exchanges.filter((e) => e.status !== null && e.status >= 500);
  const badBodies = answered.filter((e) => (e.status ?? 0) >= 400 && !isErrorShape(e.body));
  const logIds = exchanges.flatMap((e) => (typeof e.headers['x-switchyard-log-id'] === 'string' ? [e.headers['x-switchyard-log-id']] : []));
  const latency = distribution(answered.map((e) => e.latencyMs));
  const worst = [...fiveXx, ...badBodies].map((e) => `${e.fuzz.method} ${e.fuzz.path.slice(0, 60)} (${e.fuzz.what}) → ${e.status}`);
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
      `${cases.length} of ${all.length} generated cases over ${routes.length} operations of the OpenAPI document`,
      ...[...new Set(worst)].slice(0, 8),
      ...[...new Set(exchanges.filter((e) => !e.complete).map((e) => `not answered: ${e.fuzz.method} ${e.fuzz.path.slice(0, 60)} (${e.fuzz.what}): ${e.error ?? ''}`))].slice(0, 3),
    ],
  };
}

export const fuzz: Fault = {
  name: 'fuzz',
  summary: 'Malformed requests over every operation of `GET /v1/openapi.json`: bad path ids, bad query values, malformed JSON, wrong types, NUL, huge and deep values.',
  run: fuzzRow,
};
