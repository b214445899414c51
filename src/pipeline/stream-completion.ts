import type { ChatChunk } from '../domain/chat';
import { ApiError } from '../errors/api-error';
import { ProviderError } from '../providers/provider-error';
import { outcomeOf } from '../resilience/circuit-breakers';
import { NO_USAGE, statusOfError } from './attempt-record';
import { isSubstantive, runAttempts, type Success } from './attempt-runner';
import type { RequestOutcome } from './log-rows';
import { buildMetadata, buildResponse, chunkData, finalChunkData, type ChunkIdentity } from './response-builder';
import { attemptOptions, factsOf, successOutcome, type RunContext } from './run-context';
import { ESTIMATED_USAGE_WARNING, StreamAssembler } from './stream-assembler';

interface OpenedStream {
  /** Chunks read before (and including) the first one a client would see. */
  head: ChatChunk[];
  rest: AsyncIterator<ChatChunk>;
}

/** Opens a stream and reads up to its first substantive chunk: failures until then may still fail over. */
async function open(stream: AsyncIterable<ChatChunk>): Promise<OpenedStream> {
  const rest = stream[Symbol.asyncIterator]();
  const head: ChatChunk[] = [];
  for (;;) {
    const next = await rest.next();
    if (next.done) break;
    head.push(next.value);
    if (isSubstantive(next.value)) break;
  }
  return { head, rest };
}

async function* chunksOf(opened: OpenedStream): AsyncGenerator<ChatChunk> {
  yield* opened.head;
  for (;;) {
    const next = await opened.rest.next();
    if (next.done) return;
    yield next.value;
  }
}

/**
 * As OpenAI does, the first delta of each choice names the role: adapters drop the upstream's role-only
 * opening chunk, and clients such as the OpenAI SDK's stream helper refuse a choice without a role.
 */
function withRole(chunk: ChatChunk, opened: Set<number>): ChatChunk {
  return {
    ...chunk,
    choices: chunk.choices.map((choice) => {
      if (opened.has(choice.index)) return choice;
      opened.add(choice.index);
      return { ...choice, delta: { role: 'assistant', ...choice.delta } };
    }),
  };
}

/** Relays the stream; a failure after the first chunk ends it with an error event (no failover any more). */
async function relay(ctx: RunContext, success: Success<OpenedStream>, stream: { identity: ChunkIdentity; assembler: StreamAssembler }): Promise<ProviderError | null> {
  const { identity, assembler } = stream;
  const opened = new Set<number>();
  try {
    for await (const chunk of chunksOf(success.value)) {
      assembler.add(chunk);
      // Not awaited: one Redis connection keeps the order, and a chunk need not wait for the last one's round trip.
      if (chunk.choices.length > 0) {
        ctx.reply({ type: 'chunk', requestId: ctx.job.requestId, run: ctx.run, data: chunkData(identity, withRole(chunk, opened)) }).catch((err: unknown) => ctx.logger.warn({ err }, 'chunk not published'));
      }
    }
    return null;
  } catch (err) {
    return err instanceof ProviderError ? err : new ProviderError({ kind: 'invalid_response', provider: success.model.provider, message: String(err) });
  }
}

/** A streaming completion: retries and failover until the first chunk, then chunks relayed as they arrive. */
export async function streamCompletion(ctx: RunContext, promptTokens: number): Promise<RequestOutcome> {
  const success = await runAttempts(attemptOptions(ctx), async ({ provider, ctx: callCtx, request }) => ({
    value: await open(provider.chatStream(request, callCtx)),
    usage: NO_USAGE,
  }));
  const assembler = new StreamAssembler();
  const identity: ChunkIdentity = { requestId: ctx.job.requestId, created: Math.floor(ctx.job.receivedAt / 1000), model: success.model.model };
  const broken = await relay(ctx, success, { identity, assembler });
  const answering = success.records.at(-1);
  const latencyMs = answering ? Date.now() - answering.startedAt : 0;
  const { usage, estimated } = assembler.usageOrEstimate(promptTokens);
  if (answering) Object.assign(answering, { latencyMs, usage, ...(broken ? { statusCode: statusOfError(broken), error: broken } : {}) });
  const facts = factsOf(ctx, {
    model: success.model,
    usage,
    records: success.records,
    notes: success.notes,
    latencyMs,
    extraWarnings: estimated ? [ESTIMATED_USAGE_WARNING] : [],
  });
  const choices = assembler.choices();
  if (broken) {
    // The stream opened (a success for the breaker) and then broke: that counts against the model too.
    ctx.resilience.breakers.record(success.model.id, outcomeOf(broken), 'closed');
    const error = new ApiError('upstream_error', `The provider ${broken.provider} broke off the stream (${broken.kind}).`);
    await ctx.reply({ type: 'error', requestId: ctx.job.requestId, run: ctx.run, status: error.status, body: error.toBody() });
    const failed = { ...facts, statusCode: statusOfError(broken), error: broken.message };
    return successOutcome(ctx, failed, { response: { ...buildResponse(failed, choices), error: error.toBody().error }, choices, records: success.records });
  }
  ctx.latency.record(success.model.id, latencyMs);
  await ctx.reply({ type: 'chunk', requestId: ctx.job.requestId, run: ctx.run, data: finalChunkData(identity, usage, buildMetadata(facts)) });
  await ctx.reply({ type: 'done', requestId: ctx.job.requestId, run: ctx.run });
  return successOutcome(ctx, facts, { response: buildResponse(facts, choices), choices, records: success.records });
}
