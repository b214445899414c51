import fc from 'fast-check';
import request from 'supertest';
import type { OpenApiDocument } from '../../src/http/openapi/openapi-types';
import { setModels, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import type { Tenant } from '../helpers/test-context';
import type { FuzzJson } from './hostile-values';
import { everyLeafBroken, malformedRequests, type FuzzRequest, type FuzzTarget } from './malformed-requests';
import { serializeJson } from './hostile-values';

/**
 * Hostile requests to every operation of the OpenAPI document, against the real app and workers: no
 * answer may be a 5xx, every answer is JSON (or, for a streamed completion, well-formed events), and every
 * error body is exactly `{"error": {"message", "type", "code", "param"}}`. A fixed seed and a fixed number
 * of runs per operation keep it reproducible and bounded: FUZZ_SEED and FUZZ_RUNS change them.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const BODY_LIMIT_BYTES = 262_144;

let harness: CompletionsHarness;
let tenant: Tenant;
let document: OpenApiDocument;
let targets: FuzzTarget[];
let own: Record<string, string>;

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** Reads the body as text whatever its type, so a body that is not JSON is seen rather than thrown on. */
function rawText(res: request.Response, callback: (err: Error | null, body: string) => void): void {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    text += chunk;
  });
  res.on('end', () => callback(null, text));
}

async function send(sent: FuzzRequest): Promise<Answer> {
  const method = sent.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options';
  let pending = request(harness.app)[method](sent.path).set(tenant.auth).set(sent.headers).buffer(true).parse(rawText);
  // superagent would JSON-encode a Buffer sent as application/json; the bytes go as they are.
  if (sent.body !== undefined) pending = pending.serialize((bytes: Buffer | string) => bytes as string).send(sent.body);
  const res = await pending;
  return { status: res.status, contentType: String(res.headers['content-type'] ?? ''), text: res.body as string };
}

function errorShapeProblem(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || Object.keys(body).join() !== 'error') return 'not {"error": ...}';
  const error = (body as { error: Record<string, unknown> }).error;
  if (typeof error !== 'object' || error === null) return 'error is not an object';
  if (Object.keys(error).sort().join() !== 'code,message,param,type') return `error keys ${Object.keys(error).join()}`;
  if (typeof error.message !== 'string' || typeof error.type !== 'string' || typeof error.code !== 'string') return 'message, type or code not a string';
  if (error.param !== null && typeof error.param !== 'string') return 'param neither a string nor null';
  return null;
}

/** Anthropic's error body, which the Messages routes answer with (docs/anthropic-messages.md). */
function anthropicErrorShapeProblem(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || Object.keys(body).sort().join() !== 'error,type') return 'not {"type": "error", "error": ...}';
  const { type, error } = body as { type: unknown; error: Record<string, unknown> | null };
  if (type !== 'error' || typeof error !== 'object' || error === null) return 'type is not "error", or error is not an object';
  if (Object.keys(error).sort().join() !== 'message,type' || typeof error.message !== 'string' || typeof error.type !== 'string')
    return `error keys ${Object.keys(error).join()}`;
  return null;
}

type ErrorShape = (body: unknown) => string | null;

/** The error shape an operation answers in: Anthropic's on the Messages API, OpenAI's everywhere else. */
const errorShapeOf = (path: string): ErrorShape => (path.startsWith('/v1/messages') ? anthropicErrorShapeProblem : errorShapeProblem);

function streamProblem(text: string, errorShape: ErrorShape): string | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const event = JSON.parse(line.slice('data: '.length)) as Record<string, unknown>;
    if ('error' in event) return errorShape(event);
  }
  return null;
}

/** What is wrong with an answer, or null. */
function problemOf(answer: Answer, errorShape: ErrorShape): string | null {
  if (answer.status >= 500) return `status ${answer.status}`;
  // A CORS preflight (OPTIONS) is answered 204 with no body, before authentication.
  if (answer.status === 204) return answer.text === '' ? null : 'a 204 with a body';
  if (answer.status === 200 && answer.contentType.startsWith('text/event-stream')) return streamProblem(answer.text, errorShape);
  if (!answer.contentType.startsWith('application/json')) return `content type '${answer.contentType}'`;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return 'body is not JSON';
  }
  return answer.status >= 400 ? errorShape(body) : null;
}

function describe(sent: FuzzRequest, answer: Answer, problem: string): string {
  const body = typeof sent.body === 'string' ? sent.body : sent.body?.toString('base64');
  return [
    `${problem}: ${sent.method} ${sent.path.slice(0, 300)}`,
    `headers ${JSON.stringify(sent.headers)}`,
    `body ${JSON.stringify(body?.slice(0, 500))}`,
    `answer ${answer.status} ${answer.contentType} ${answer.text.slice(0, 500)}`,
  ].join('\n  ');
}

async function fixtures(owner: Tenant): Promise<Record<string, string>> {
  const models = await setModels(harness.app, owner, { 'test-echo': true, 'test-fixed': true });
  const prompt = await request(harness.app).post('/v1/prompts').set(owner.auth).send({ prompt: 'p', title: 't', description: 'd' }).expect(201);
  const base = `/v1/apps/${owner.app_id}`;
  const assistant = await request(harness.app).post(`${base}/assistants`).set(owner.auth).send({ name: 'a' }).expect(201);
  const conversation = await request(harness.app).post(`${base}/conversations/create`).set(owner.auth).send({}).expect(201);
  const completion = await request(harness.app)
    .post('/v1/chat/completions')
    .set(owner.auth)
    .send({ model: 'test-echo', messages: [{ role: 'user', content: 'hi' }] })
    .expect(200);
  return {
    app_id: owner.app_id,
    model_id: models['test-echo'] as string,
    prompt_id: prompt.body.id,
    assistant_id: assistant.body.id,
    conversation_id: conversation.body.id,
    log_id: completion.body.id,
  };
}

/** Valid bodies to start from, so that hostile values reach the services, the queue and the database. */
function examplesFor(own: Record<string, string>): Record<string, FuzzJson[]> {
  const messages = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'hi' },
  ];
  return {
    createChatCompletion: [
      { model: 'test-echo', messages },
      { messages, stream: true, max_tokens: 50, custom_headers: { labels: { team: 'a', n: 1 } } },
      { model: 'switchyard', messages, conversation_id: own.conversation_id as string, user: 'u' },
      { model: 'test-fixed', messages, assistant_id: own.assistant_id as string, metadata: { passed: 'through' } },
    ],
    createApp: [{ name: 'n', description: 'd', rate_limit: 100, settings: { instructions: 'i', max_tokens: 10 } }],
    updateApp: [{ id: own.app_id as string, description: 'd', settings: { instructions: 'i' }, policies: { max_same_model_retries: 1 } }],
    createAssistant: [{ name: 'a', assistant_config: { instructions: 'i', model: 'test-echo', max_tokens: 10 } }],
    updateAssistant: [{ description: 'd', assistant_config: { instructions: 'j', temperature: 1 } }],
    createConversation: [{ name: 'c', added_on: '2024-01-01T00:00:00Z', settings: { assistant_id: own.assistant_id as string } }],
    updatePrompt: [{ id: own.prompt_id as string, prompt: 'p', title: 't', description: 'd' }],
  };
}

beforeAll(async () => {
  harness = startCompletionsHarness({ bodyLimitBytes: BODY_LIMIT_BYTES });
  tenant = await harness.tenant();
  own = await fixtures(tenant);
  // Ids of another organization: each must answer like an unknown id.
  const foreign = await fixtures(await harness.tenant());
  document = (await request(harness.app).get('/v1/openapi.json').expect(200)).body as OpenApiDocument;
  const pathIds = Object.fromEntries(Object.keys(own).map((name) => [name, [own[name] as string, foreign[name] as string]]));
  targets = malformedRequests(document, {
    pathIds,
    uuids: [...Object.values(own), ...Object.values(foreign)],
    stringsByField: { model: ['test-echo', 'test-fixed', 'switchyard'] },
    bodyLimitBytes: BODY_LIMIT_BYTES,
    examples: examplesFor(own),
  });
}, 60_000);
afterAll(() => harness.close());

it(`answers every operation's hostile requests without a 5xx, in JSON (seed ${SEED}, ${RUNS} runs per operation)`, async () => {
  const operations = Object.values(document.paths).reduce((sum, item) => sum + Object.keys(item).length, 0);
  expect(targets).toHaveLength(operations);
  const failures: string[] = [];
  const statuses: Record<string, Record<number, number>> = {};
  for (const target of targets) {
    let seen = '';
    const counts: Record<number, number> = (statuses[`${target.method} ${target.path}`] = {});
    const details = await fc.check(
      fc.asyncProperty(target.requests, async (sent) => {
        const answer = await send(sent);
        counts[answer.status] = (counts[answer.status] ?? 0) + 1;
        const problem = problemOf(answer, errorShapeOf(target.path));
        if (problem) seen = describe(sent, answer, problem);
        return problem === null;
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    if (details.failed) failures.push(`${target.method} ${target.path} (seed ${SEED}, path ${details.counterexamplePath}):\n  ${seen}`);
  }
  // FUZZ_STATS=1 shows how the answers spread, e.g. whether valid requests still get through.
  if (process.env.FUZZ_STATS)
    process.stdout.write(
      `${Object.entries(statuses)
        .map(([route, counts]) => `${route} ${JSON.stringify(counts)}`)
        .join('\n')}\n`,
    );
  expect(failures).toEqual([]);
}, 240_000);

it('answers every field of every valid example, broken by each storage-breaking value, without a 5xx', async () => {
  const examples = examplesFor(own);
  const failures: string[] = [];
  let sentCount = 0;
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const filled = path.replace(/\{([^}]+)\}/g, (_whole, name: string) => own[name] ?? '');
      for (const body of (examples[operation.operationId] ?? []).flatMap(everyLeafBroken)) {
        const sent: FuzzRequest = { method: method.toUpperCase(), path: filled, headers: { 'Content-Type': 'application/json' }, body: serializeJson(body) };
        const answer = await send(sent);
        sentCount += 1;
        const problem = problemOf(answer, errorShapeOf(path));
        if (problem) failures.push(describe(sent, answer, problem));
      }
    }
  }
  expect(sentCount).toBeGreaterThan(100);
  expect(failures).toEqual([]);
}, 240_000);
