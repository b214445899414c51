import { readStoredLog } from '../../../../src/schemas/stored-log';
import { randomUUID } from 'node:crypto';
import type { Fault, FaultContext } from '../fault';
import { size } from '../fault';
import { send, type Exchange } from '../http-client';
import type { Row } from '../row';
import type { RowSpace } from '../spaces';
import { RACE_MODEL_HOST } from '../stack';
import { sleep } from '../traffic';

/**
 * The edge cases an attacker with one key tried, on the running processes: the same delete six times at
 * once (one 200, five 404, never a 500), another organization's ids named in a completion (the 404 of an
 * unknown id, to the byte), unknown top-level fields on each API (400 `unknown_field`), and a stream the
 * client leaves mid-answer (its parent and child logs both 499).
 */

const TIMEOUT_MS = 20_000;

function call(
  ctx: FaultContext,
  space: RowSpace,
  request: { method: string; path: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number },
): Promise<Exchange> {
  const url = ctx.stack.liveApiUrls()[Math.floor(Math.random() * ctx.stack.liveApiUrls().length)] ?? '';
  return send({
    method: request.method,
    url: `${url}${request.path}`,
    headers: { authorization: `Bearer ${space.apiKey}`, 'content-type': 'application/json', ...request.headers },
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    timeoutMs: request.timeoutMs ?? TIMEOUT_MS,
  });
}

const json = (exchange: Exchange): { id?: string; error?: { code?: string } } => {
  try {
    return JSON.parse(exchange.body) as { id?: string; error?: { code?: string } };
  } catch {
    return {};
  }
};

/** Counts of what went wrong, and every exchange sent (for the status columns). */
interface Tally {
  exchanges: Exchange[];
  deleteRacesWrong: number;
  foreignNotLikeUnknown: number;
  unknownFieldsNotRefused: number;
  abortedNot499: number;
}

/** A custom model of the organization: saved only (its host is allowlisted for the suite and never called). */
async function customModel(ctx: FaultContext, space: RowSpace, tally: Tally): Promise<string> {
  const created = await call(ctx, space, {
    method: 'POST',
    path: '/v1/custom_models',
    body: {
      model: `race-${randomUUID().slice(0, 8)}`,
      provider: 'vllm',
      namespace: 'race/model',
      base_url: `http://${RACE_MODEL_HOST}/v1`,
      prices: { prompt_per_1m: 1, completion_per_1m: 1 },
      context_window: 1000,
      capabilities: { functions: false, json: false, vision: false, stream: true },
      quality: { overall: 0.5 },
    },
  });
  tally.exchanges.push(created);
  const id = json(created).id;
  if (!id) throw new Error(`custom model not created: ${created.status} ${created.body.slice(0, 200)}`);
  return id;
}

async function deleteRaces(ctx: FaultContext, space: RowSpace, tally: Tally): Promise<void> {
  for (let round = 0; round < size(ctx, 10, 4); round++) {
    const id = await customModel(ctx, space, tally);
    const answers = await Promise.all(Array.from({ length: 6 }, () => call(ctx, space, { method: 'DELETE', path: `/v1/custom_models/${id}` })));
    tally.exchanges.push(...answers);
    const statuses = answers.map((a) => a.status).sort();
    if (statuses.join(',') !== '200,404,404,404,404,404') tally.deleteRacesWrong += 1;
  }
}

async function foreignIds(ctx: FaultContext, { owner, stranger }: { owner: RowSpace; stranger: RowSpace }, tally: Tally): Promise<void> {
  const conversation = await call(ctx, owner, { method: 'POST', path: `/v1/apps/${owner.appId}/conversations/create`, body: {} });
  const completion = await call(ctx, owner, {
    method: 'POST',
    path: '/v1/chat/completions',
    body: { messages: [{ role: 'user', content: '[rel:ownership-owner] Hi' }] },
  });
  tally.exchanges.push(conversation, completion);
  const owned = { conversation_id: json(conversation).id, parent_request_id: completion.headers['x-switchyard-log-id'] as string | undefined };
  for (const [field, id] of Object.entries(owned)) {
    if (!id) throw new Error(`no ${field} to name: ${conversation.status} ${completion.status}`);
    const ask = (value: string) =>
      call(ctx, stranger, {
        method: 'POST',
        path: '/v1/chat/completions',
        body: { messages: [{ role: 'user', content: '[rel:ownership-stranger] Hi' }], [field]: value },
      });
    const [foreign, unknown] = await Promise.all([ask(id), ask(randomUUID())]);
    tally.exchanges.push(foreign, unknown);
    if (foreign.status !== 404 || foreign.body !== unknown.body) tally.foreignNotLikeUnknown += 1;
  }
}

async function unknownFields(ctx: FaultContext, space: RowSpace, tally: Tally): Promise<void> {
  const messages = [{ role: 'user', content: '[rel:ownership-unknown] Hi' }];
  const answers = await Promise.all([
    call(ctx, space, { method: 'POST', path: '/v1/chat/completions', body: { messages, app_id: space.appId } }),
    call(ctx, space, { method: 'POST', path: '/v1/embeddings', body: { input: 'hi', colour: 'red' } }),
    call(ctx, space, { method: 'POST', path: '/v1/responses', body: { input: 'hi', colour: 'red' } }),
    call(ctx, space, {
      method: 'POST',
      path: '/v1/messages',
      headers: { 'anthropic-version': '2023-06-01' },
      body: { model: 'switchyard', max_tokens: 8, messages, plugins: [] },
    }),
  ]);
  tally.exchanges.push(...answers);
  tally.unknownFieldsNotRefused += answers.filter((a) => a.status !== 400).length;
}

/** Streams dripping a chunk every 250 ms, left by their client after 900 ms: both logs must say 499. */
async function abortedStreams(ctx: FaultContext, space: RowSpace, tally: Tally): Promise<void> {
  const count = size(ctx, 6, 3);
  ctx.upstream.script(
    space.upstreamName.healthy ?? '',
    Array.from({ length: count }, () => ({ kind: 'ok' as const, chunkDelayMs: 250 })),
  );
  const left = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      call(ctx, space, {
        method: 'POST',
        path: '/v1/chat/completions',
        body: { stream: true, messages: [{ role: 'user', content: `[rel:ownership-abort-${i}] Tell me a long story, slowly.` }] },
        timeoutMs: 900,
      }),
    ),
  );
  tally.exchanges.push(...left);
  const logIds = left.map((exchange) => exchange.headers['x-switchyard-log-id']).filter((id): id is string => typeof id === 'string');
  tally.abortedNot499 += count - logIds.length;
  await sleep(3000);
  for (const id of logIds) {
    const rows = await ctx.db.log.findMany({ where: { OR: [{ id }, { parent_id: id }] }, select: { id: true, status_code: true, response: true } });
    const parent = rows.find((row) => row.id === id);
    // A log of one model call keeps the call's figures in its own row (no child row): its step is that call.
    const steps = rows.length > 1 ? rows.filter((row) => row.id !== id).map((row) => row.status_code) : [readStoredLog(parent?.response)?.call?.status];
    if (!parent || parent.status_code !== 499 || steps.some((status) => status !== 499)) tally.abortedNot499 += 1;
  }
}

async function ownershipRow(ctx: FaultContext): Promise<Row> {
  const owner = await ctx.createSpace({ row: 'ownership owner', models: [{ role: 'healthy', quality: 0.9 }] });
  const stranger = await ctx.createSpace({ row: 'ownership stranger', models: [{ role: 'healthy', quality: 0.9 }] });
  const tally: Tally = { exchanges: [], deleteRacesWrong: 0, foreignNotLikeUnknown: 0, unknownFieldsNotRefused: 0, abortedNot499: 0 };
  await deleteRaces(ctx, owner, tally);
  await foreignIds(ctx, { owner, stranger }, tally);
  await unknownFields(ctx, owner, tally);
  await abortedStreams(ctx, owner, tally);
  const { exchanges } = tally;
  const answered = exchanges.filter((e) => e.status !== null && e.complete);
  const accepted = exchanges.map((e) => e.headers['x-switchyard-log-id']).filter((id): id is string => typeof id === 'string');
  return {
    fault: 'ownership and edges',
    sent: exchanges.length,
    answered: answered.length,
    ok: answered.filter((e) => e.status !== null && e.status < 500).length,
    fiveXx: exchanges.filter((e) => e.status !== null && e.status >= 500).length,
    lostLogs: await ctx.lostLogs(accepted),
    callsPerRequest: null,
    p50Ms: null,
    p99Ms: null,
    other: {
      'delete races not one 200 and five 404': tally.deleteRacesWrong,
      'foreign ids not answered as unknown': tally.foreignNotLikeUnknown,
      'unknown fields not refused 400': tally.unknownFieldsNotRefused,
      'left streams not logged 499': tally.abortedNot499,
    },
    notes: ['aborted streams are left by their client mid-answer, so they count as not answered'],
  };
}

export const ownership: Fault = {
  name: 'ownership and edges',
  summary:
    "Six concurrent deletes of one custom model (rounds of it), another organization's conversation_id and parent_request_id in a completion, an unknown field on chat, embeddings, Responses and Messages, and streams their client leaves mid-answer.",
  run: ownershipRow,
};
