import type { Job } from 'bullmq';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { Pool } from 'pg';
import { request } from 'undici';
import type { ChatMessage } from '../../src/domain/chat';
import type { PluginId, SearchResultItem } from '../../src/plugins/types';
import { pluginContextMessage, withPluginContext } from '../../src/pipeline/plugin-context';
import type { PluginRun } from '../../src/pipeline/plugin-steps';
import { runChildEntry } from './child-entry';
import { floorAgent } from './floor-plugins';
import { FloorSpaceSearch } from './plugin-floor-space';
import { floorWebSearch } from './plugin-floor-web';
import { FloorLogWriter, type FloorLogTable } from './queue-floor/log-writer';
import { FLOOR_QUEUE, type FloorJob } from './queue-floor/messages';
import { FloorReplyPublisher } from './queue-floor/reply-publisher';

/**
 * The plugin floor's worker process (`bench:plugins`, cell `plugin-floor`): the queue floor's worker
 * (tools/bench/queue-floor/worker.ts, `least` work) doing the plugin work Switchyard does for
 * `plugins: ["web-search", "space-search"]`, both at once, each the leanest way we know:
 * web-search in plugin-floor-web.ts, space-search (a real search of the Space's chunks in PostgreSQL,
 * ranked and cut into snippets as Switchyard does) in plugin-floor-space.ts. Their outputs reach the
 * model as Switchyard puts them (`pluginContextMessage`, `withPluginContext`: one system message of
 * delimited, escaped blocks before the last user turn, space-search's sources numbered after
 * web-search's); the answer carries the same `metadata.search_results` and `metadata.extra.plugins`;
 * one log row per request (with its sources) is committed before the answer is published. No key check,
 * routing, backend limiter, timeouts, retries, breakers, costs or child log rows.
 * argv: Redis URL, key prefix, upstream base URL (…/v1), database URL, the Space's id, SearXNG base URL,
 * embeddings base URL, pages fetched per request (web-search's `fetch_pages`).
 */
const [redisUrl = '', prefix = '', upstreamUrl = '', databaseUrl = '', appId = '', searxngUrl = '', embeddingsUrl = '', fetchPagesArg = '0'] =
  process.argv.slice(2);
const fetchPages = Number(fetchPagesArg);
const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
const publisher = new Redis(redisUrl);
const replies = new FloorReplyPublisher(publisher);
const searchPool = new Pool({ connectionString: databaseUrl, max: 4 });
const space = new FloorSpaceSearch(searchPool, embeddingsUrl);

interface PluginFloorRow {
  id: string;
  model: string;
  request: unknown;
  response: string;
  search_results: SearchResultItem[];
  prompt_tokens: number;
  completion_tokens: number;
}

/** The queue floor's narrow row, with the sources the answer used (Switchyard's log keeps them too). */
const PLUGIN_FLOOR_LOG_TABLE: FloorLogTable<PluginFloorRow> = {
  create: `CREATE TABLE IF NOT EXISTS plugin_floor_logs (
    id uuid PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now(), model text NOT NULL, request jsonb NOT NULL,
    response text NOT NULL, search_results jsonb NOT NULL, prompt_tokens integer NOT NULL, completion_tokens integer NOT NULL)`,
  statement: (rows) => ({
    sql: 'INSERT INTO plugin_floor_logs (id, model, request, response, search_results, prompt_tokens, completion_tokens) SELECT id, model, request, response, search_results, prompt_tokens, completion_tokens FROM json_populate_recordset(NULL::plugin_floor_logs, $1::json)',
    params: [JSON.stringify(rows)],
  }),
};
const logs = new FloorLogWriter(databaseUrl, PLUGIN_FLOOR_LOG_TABLE);

interface Output {
  context: string | null;
  searchResults: SearchResultItem[];
}

/** A plugin's run as the context message and the metadata need it; a failure is recorded, never thrown. */
async function runPlugin(id: PluginId, work: () => Promise<Output>): Promise<PluginRun> {
  const call = { id, trigger: 'requested' as const, reason: 'named in the request', args: null };
  try {
    const output = await work();
    return { call, output: { ...output, artifacts: [], costUsd: 0 }, problem: null, error: null };
  } catch (err) {
    return { call, output: null, problem: `${id} failed: ${err instanceof Error ? err.message : String(err)}`, error: err };
  }
}

/** Source markers `[n]` at a line's start moved up by `offset` (plugin-steps.ts's `renumbered`). */
function renumbered(run: PluginRun, offset: number): PluginRun {
  if (!run.output || offset === 0) return run;
  const count = run.output.searchResults.length;
  const context =
    run.output.context?.replace(/^\[(\d+)\]/gm, (marker, n: string) => (Number(n) >= 1 && Number(n) <= count ? `[${Number(n) + offset}]` : marker)) ?? null;
  const searchResults = run.output.searchResults.map((item) => ({ ...item, index: item.index + offset }));
  return { ...run, output: { ...run.output, context, searchResults } };
}

async function pluginWork(messages: ChatMessage[]): Promise<{ messages: ChatMessage[]; metadata: object; sources: SearchResultItem[] }> {
  const last = messages.at(-1);
  const question = last?.role === 'user' && typeof last.content === 'string' ? last.content : '';
  const [web, found] = await Promise.all([
    runPlugin('web-search', () => floorWebSearch(searxngUrl, { question, fetchPages })),
    runPlugin('space-search', () => space.search(appId, question)),
  ]);
  const runs = [web, renumbered(found, web.output?.searchResults.length ?? 0)];
  const sources = runs.flatMap((run) => run.output?.searchResults ?? []);
  return {
    messages: withPluginContext(messages, pluginContextMessage(runs)),
    sources,
    metadata: {
      search_results: { items: sources },
      extra: { plugins: runs.map((run) => ({ id: run.call.id, status: run.output ? 'ok' : 'failed', ...(run.problem ? { error: run.problem } : {}) })) },
    },
  };
}

interface ModelAnswer {
  choices?: { message?: { content?: string } }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

async function run(job: Job<FloorJob>): Promise<void> {
  const { id, replyTo, body } = job.data;
  const { plugins: _plugins, ...rest } = body;
  const work = await pluginWork(body.messages as ChatMessage[]);
  const res = await request(`${upstreamUrl}/chat/completions`, {
    method: 'POST',
    dispatcher: floorAgent,
    headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
    body: JSON.stringify({ ...rest, messages: work.messages }),
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) {
    replies.publish(replyTo, { id, type: 'error', status: 502, body: text }, true);
    return;
  }
  const answer = JSON.parse(text) as ModelAnswer;
  const model = typeof body.model === 'string' ? body.model : '';
  const content = answer.choices?.[0]?.message?.content ?? '';
  await logs.write({
    id,
    model,
    request: body,
    response: content,
    search_results: work.sources,
    prompt_tokens: answer.usage?.prompt_tokens ?? 0,
    completion_tokens: answer.usage?.completion_tokens ?? 0,
  });
  replies.publish(replyTo, { id, type: 'done', body: JSON.stringify({ ...answer, metadata: work.metadata }) }, true);
}

runChildEntry('plugin floor worker', async () => {
  await logs.start();
  const worker = new Worker<FloorJob>(FLOOR_QUEUE, run, { connection, prefix, concurrency: 256 });
  await worker.waitUntilReady();
  return {
    ready: { worker: true },
    close: async () => {
      await worker.close();
      await Promise.all([logs.close(), searchPool.end()]);
      connection.disconnect();
      publisher.disconnect();
    },
  };
});
