import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { request } from 'undici';
import { runChildEntry } from '../child-entry';
import { floorAgent, withPluginContext, type PluginBackendUrls } from '../floor-plugins';
import { CONFIGURED_CLAIM_TABLE, type FloorClaim } from './claims';
import { countJob, costsOf, recordCall, route, type Costs, type Scored } from './configured-work';
import { CONFIGURED_LOG_TABLE, LEAST_LOG_TABLE, REQUIRED_LOG_TABLE } from './log-tables';
import { FloorLogWriter } from './log-writer';
import { FLOOR_QUEUE, type FloorJob } from './messages';
import { FloorReplyPublisher } from './reply-publisher';
import type { FloorWork } from './start';

/**
 * A floor's worker process: takes each job, calls the model upstream (streaming or not), writes the
 * request's log and waits for its commit, then publishes the answer to the API process that waits for
 * it; stream chunks go out as they come, the first at once and the rest gathered for up to 5 ms
 * (reply-publisher.ts: one message per API channel for what is ready together, as Switchyard's
 * ReplyPublisher). No routing, plugins, retries, prices or privacy rules. With `least` work, the least the
 * worker of a queue-shaped gateway that logs every request does: one narrow log row, the upstream asked
 * as the client asked. With `required` work, also what issue 20 leaves no implementation without:
 * - a non-streaming request's answer is asked for as a stream and assembled (the fault suite's `hang`
 *   row needs a first-byte timeout for JSON requests too, and a whole answer's first byte comes only
 *   when it is complete);
 * - the log is a parent and a child row in a copy of Switchyard's `logs` table (log-tables.ts).
 * Its API process admits each request first (reply-relay.ts): the Space's version stamp and the rate limit,
 * in one script. With `configured` work, also the rest of issue 20's configuration, each the leanest way
 * (configured-work.ts): routing among the active models when the request names none, a breaker per
 * model, the operators' metrics, costs and savings in the log rows and the answer's metadata, and the
 * run-once claim (claims.ts): before its first upstream or plugin call, each run inserts its request's
 * claim into a copy of Switchyard's `completion_claims` (one prepared statement, `synchronous_commit` off,
 * group-committed like the logs); a run whose claim did not go in (the job handed out twice) calls
 * nothing and publishes nothing, and the run that holds the claim answers.
 * With the plugin backends' URLs, a request naming `plugins` first calls both at once
 * (tools/bench/floor-plugins.ts).
 * argv: Redis URL, key prefix, upstream base URL (…/v1), database URL, work (`least`, `required` or `configured`), then
 * optionally the SearXNG and embeddings base URLs.
 */
const [redisUrl = '', prefix = '', upstreamUrl = '', databaseUrl = '', work = 'least', searxng, embeddings] = process.argv.slice(2);
const configured = (work as FloorWork) === 'configured';
const required = configured || (work as FloorWork) === 'required';
const backends: PluginBackendUrls | null = searxng && embeddings ? { searxng, embeddings } : null;
const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
const publisher = new Redis(redisUrl);
const replies = new FloorReplyPublisher(publisher);
const leastLogs = new FloorLogWriter(databaseUrl, LEAST_LOG_TABLE);
const requiredLogs = new FloorLogWriter(databaseUrl, configured ? CONFIGURED_LOG_TABLE : REQUIRED_LOG_TABLE);
/** The configured floor's run-once claims (its own two connections, as the logs have theirs: a claim never queues behind a log's commit). */
const claims = configured ? new FloorLogWriter(databaseUrl, CONFIGURED_CLAIM_TABLE) : null;
/** This worker process, as its claims name it. */
const OWNER = randomUUID();
/** The tenant the required rows name (the copy has no foreign keys to check them against). */
const TENANT = { org_id: randomUUID(), app_id: randomUUID(), idp_id: 'bench', model_id: randomUUID() };

interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
}
interface Chunk {
  choices?: { delta?: { content?: string }; finish_reason?: string | null }[];
  usage?: Usage | null;
}

interface Answer {
  text: string;
  usage: Usage;
  finish: string;
}

/** Reads the upstream's SSE `data:` payloads, handing each to `relay` (a streaming request's); answers what the log and a JSON answer need. */
async function readStream(body: AsyncIterable<Buffer>, relay?: (data: string) => void): Promise<Answer> {
  let buffer = '';
  let text = '';
  let usage: Usage = {};
  let finish = 'stop';
  for await (const part of body) {
    buffer += part.toString('utf8');
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      if (!event.startsWith('data: ')) continue;
      const data = event.slice(6);
      if (data === '[DONE]') continue;
      const chunk = JSON.parse(data) as Chunk;
      const choice = chunk.choices?.[0];
      text += choice?.delta?.content ?? '';
      if (choice?.finish_reason) finish = choice.finish_reason;
      if (chunk.usage) usage = chunk.usage;
      relay?.(data);
    }
  }
  return { text, usage, finish };
}

/** A streamed answer assembled into the JSON body OpenAI gives for a non-streaming request (with the configured floor's metadata). */
function wholeBody(model: string, answer: Answer, metadata: object | null): string {
  const usage = { prompt_tokens: answer.usage.prompt_tokens ?? 0, completion_tokens: answer.usage.completion_tokens ?? 0 };
  return JSON.stringify({
    id: `chatcmpl-${randomUUID()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: answer.text }, finish_reason: answer.finish, logprobs: null }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    ...(metadata ? { metadata } : {}),
  });
}

/** What the configured floor knows of a routed, priced call: the answer's metadata (the spec's fields) and the log's figures. */
interface Priced {
  costs: Costs;
  savings: Costs;
  candidates: Scored[];
  latencyMs: number;
}

function metadataOf(body: FloorJob['body'], model: string, priced: Priced): object {
  const best = priced.candidates.find((c) => c.model === model);
  return {
    app_id: TENANT.app_id,
    model: { model, namespace: model, provider: 'openai', owner: 'openai', at: new Date().toISOString() },
    costs: priced.costs,
    cost_savings: priced.savings,
    generated_artifacts: { items: [] },
    search_results: { items: [] },
    latency: priced.latencyMs,
    labels: {},
    error: '',
    scores: { best_models: [model], candidates: priced.candidates },
    score: best?.score ?? 0,
    temperature: typeof body.temperature === 'number' ? body.temperature : null,
    max_tokens: typeof body.max_tokens === 'number' ? body.max_tokens : null,
    status_code: 200,
    retries: 0,
    extra: {},
    warning: '',
  };
}

/** The last user message's text: what a log row shows as the prompt. */
function promptOf(body: FloorJob['body']): string {
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: string; content?: unknown }[]) : [];
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (message?.role === 'user') return typeof message.content === 'string' ? message.content : '';
  }
  return '';
}

/** The request's log, the least way or the required one (with the configured floor's costs and savings). */
function writeLog(
  data: FloorJob,
  { model, answer, startedAt, priced }: { model: string; answer: Answer; startedAt: number; priced: Priced | null },
): Promise<void> {
  const prompt_tokens = answer.usage.prompt_tokens ?? 0;
  const completion_tokens = answer.usage.completion_tokens ?? 0;
  if (!required) return leastLogs.write({ id: data.id, model, request: data.body, response: answer.text, prompt_tokens, completion_tokens });
  const figures: RowFigures = { prompt_tokens, completion_tokens, latency: Date.now() - startedAt, timestamp: startedAt, priced };
  return requiredLogs.write({
    parent: logRow(model, figures, {
      id: data.id,
      parent_id: null,
      payload: data.body,
      response: { text: answer.text, usage: answer.usage },
      prompt: promptOf(data.body),
      response_text: answer.text,
    }),
    child: logRow(model, figures, {
      id: randomUUID(),
      parent_id: data.id,
      payload: { step: 'model', model, provider: 'openai' },
      response: { usage: answer.usage },
      prompt: null,
      response_text: null,
    }),
  });
}

interface RowFigures {
  prompt_tokens: number;
  completion_tokens: number;
  latency: number;
  timestamp: number;
  priced: Priced | null;
}

/** What a parent row and a child row have of their own. */
interface RowOwn {
  id: string;
  parent_id: string | null;
  payload: unknown;
  response: unknown;
  prompt: string | null;
  response_text: string | null;
}

/**
 * A log row as one object literal. After a spread, V8 adds each further property one by one, with an
 * allocation for each: built as `{ ...tenant, ...figures, more }`, the rows cost the required floor's
 * worker 17 KB per completion (Switchyard's rows are one literal too, src/pipeline/log-rows.ts).
 * Each statement names its own columns: the required floor's leaves out the savings, a child's the prompt.
 */
function logRow(model: string, { prompt_tokens, completion_tokens, latency, timestamp, priced }: RowFigures, own: RowOwn) {
  return {
    id: own.id,
    parent_id: own.parent_id,
    payload: own.payload,
    response: own.response,
    prompt: own.prompt,
    response_text: own.response_text,
    org_id: TENANT.org_id,
    app_id: TENANT.app_id,
    idp_id: TENANT.idp_id,
    model_id: TENANT.model_id,
    namespace: model,
    prompt_tokens,
    completion_tokens,
    total_tokens: prompt_tokens + completion_tokens,
    prompt_tokens_cost: priced?.costs.prompt_tokens ?? 0,
    completion_tokens_cost: priced?.costs.completion_tokens ?? 0,
    total_tokens_cost: priced?.costs.total_tokens ?? 0,
    prompt_tokens_cost_savings: priced?.savings.prompt_tokens ?? 0,
    completion_tokens_cost_savings: priced?.savings.completion_tokens ?? 0,
    total_tokens_cost_savings: priced?.savings.total_tokens ?? 0,
    privacy_level: 1,
    request_type: 'chat_completions',
    status_code: 200,
    latency,
    timestamp,
  };
}

/** The body sent to the model: the client's, with the plugins' sources when it named plugins. */
async function modelCall(body: FloorJob['body']): Promise<{ body: Record<string, unknown>; metadata: object | null }> {
  if (!backends || !Array.isArray(body.plugins)) return { body, metadata: null };
  const { plugins: _plugins, ...rest } = body;
  const { messages, metadata } = await withPluginContext(body.messages as { role: string; content: string }[], backends);
  return { body: { ...rest, messages }, metadata };
}

async function run(job: Job<FloorJob>): Promise<void> {
  const data = job.data;
  const startedAt = Date.now();
  const started = process.hrtime.bigint();
  if (claims && !(await claimed(claims, data))) return;
  const call = await modelCall(data.body);
  const routed = configured ? route(data.body.model) : null;
  const model = routed?.model ?? (typeof data.body.model === 'string' ? data.body.model : '');
  const streamed = data.stream || required;
  const sent = routed ? { ...call.body, model } : call.body;
  const res = await request(`${upstreamUrl}/chat/completions`, {
    method: 'POST',
    dispatcher: floorAgent,
    headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
    body: JSON.stringify(streamed ? { ...sent, stream: true, stream_options: { include_usage: true } } : sent),
  });
  if (res.statusCode !== 200) {
    const body = await res.body.text();
    if (routed) recordCall(model, false);
    replies.publish(data.replyTo, { id: data.id, type: 'error', status: 502, body }, true);
    return;
  }
  let answer: Answer;
  let body = '';
  let sentFirst = false;
  if (data.stream) {
    answer = await readStream(res.body, (chunk) => {
      replies.publish(data.replyTo, { id: data.id, type: 'chunks', chunks: [chunk] }, !sentFirst);
      sentFirst = true;
    });
  } else if (required) {
    answer = await readStream(res.body);
  } else {
    body = await res.body.text();
    const parsed = JSON.parse(body) as { choices?: { message?: { content?: string }; finish_reason?: string }[]; usage?: Usage };
    answer = { text: parsed.choices?.[0]?.message?.content ?? '', usage: parsed.usage ?? {}, finish: parsed.choices?.[0]?.finish_reason ?? 'stop' };
    if (call.metadata) body = JSON.stringify({ ...parsed, metadata: call.metadata });
  }
  const priced = routed ? price({ model, answer, candidates: routed.candidates, latencyMs: Date.now() - startedAt }) : null;
  if (priced)
    countJob({
      appId: TENANT.app_id,
      model,
      status: 200,
      startedAt: started,
      callMs: priced.latencyMs,
      promptTokens: answer.usage.prompt_tokens ?? 0,
      completionTokens: answer.usage.completion_tokens ?? 0,
      cost: priced.costs.total_tokens,
      saved: priced.savings.total_tokens,
    });
  const metadata = priced ? metadataOf(data.body, model, priced) : null;
  if (required && !data.stream) body = wholeBody(model, answer, metadata);
  await writeLog(data, { model, answer, startedAt, priced });
  // A stream's last chunk carries the answer's metadata, as Switchyard's does.
  if (data.stream && metadata)
    replies.publish(
      data.replyTo,
      { id: data.id, type: 'chunks', chunks: [JSON.stringify({ object: 'chat.completion.chunk', model, choices: [], metadata })] },
      !sentFirst,
    );
  replies.publish(data.replyTo, { id: data.id, type: 'done', body }, true);
}

/**
 * The configured floor's claim, before any upstream or plugin call: true when this run holds it. A claim
 * PostgreSQL does not take fails the request with a 503 (nothing was called); one another run holds ends
 * this run at once (Switchyard's duplicate waits for the holder to finish or die first: a path the bench
 * never takes).
 */
async function claimed(writer: FloorLogWriter<FloorClaim, boolean>, data: FloorJob): Promise<boolean> {
  try {
    return await writer.write({ request_id: data.id, owner: OWNER, run: randomUUID() });
  } catch (err) {
    replies.publish(
      data.replyTo,
      { id: data.id, type: 'error', status: 503, body: JSON.stringify({ error: { message: `The completion could not be claimed: ${String(err)}` } }) },
      true,
    );
    return false;
  }
}

/** The configured floor's figures of a call that answered: its breaker told, its costs and savings. */
function price({ model, answer, candidates, latencyMs }: { model: string; answer: Answer; candidates: Scored[]; latencyMs: number }): Priced {
  recordCall(model, true);
  return { ...costsOf(model, answer.usage.prompt_tokens ?? 0, answer.usage.completion_tokens ?? 0), candidates, latencyMs };
}

runChildEntry('queue floor worker', async () => {
  await (required ? requiredLogs : leastLogs).start();
  await claims?.start();
  const worker = new Worker<FloorJob>(FLOOR_QUEUE, run, { connection, prefix, concurrency: 256 });
  await worker.waitUntilReady();
  return {
    ready: { worker: true },
    close: async () => {
      await worker.close();
      await Promise.all([leastLogs.close(), requiredLogs.close(), claims?.close()]);
      connection.disconnect();
      publisher.disconnect();
    },
  };
});
