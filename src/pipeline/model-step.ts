import type { ChatChoice, ChatChunk, ChatMessage, ChunkChoice, ToolChoice, ToolDefinition, Usage } from '../domain/chat';
import type { RoutableModel } from '../domain/routable-model';
import { UpstreamError } from '../errors/upstream-error';
import { outcomeOf } from '../resilience/circuit-breakers';
import { NO_USAGE, statusOfError } from './attempt-record';
import { isSubstantive, runAttempts, type AttemptCall } from './attempt-runner';
import { attemptOptions, type RunContext } from './run-context';
import { ESTIMATED_USAGE_WARNING, StreamAssembler } from './stream-assembler';

/** What one model step is asked: the conversation so far and the tools on offer. */
export interface ModelStepInput {
  messages: ChatMessage[];
  tools: ToolDefinition[] | undefined;
  toolChoice: ToolChoice | undefined;
  /** Models to try, in order. */
  attempts: Iterable<RoutableModel>;
  /**
   * Tools the worker runs itself (plugins offered under auto_tools): while streaming, tool-call deltas
   * and the finish are held back until the step ends, since a call to one of them is not the client's.
   */
  holdToolCalls: boolean;
  /**
   * The prompt's tokens, asked for only if the upstream reports no usage: counting a prompt that plugin
   * context made long costs about a millisecond of CPU, which a reported usage makes useless.
   */
  promptTokens: () => number;
}

export interface ModelStepResult {
  model: RoutableModel;
  choices: ChatChoice[];
  usage: Usage;
  /** Milliseconds the answering call took. */
  latencyMs: number;
  /** Set when a stream broke off after its first chunk (no failover any more). */
  broken: UpstreamError | null;
}

interface OpenedStream {
  /** Chunks read before (and including) the batch with the first one a client would see. */
  head: ChatChunk[];
  rest: AsyncIterator<ChatChunk[]>;
}

/** Opens a stream and reads up to its first substantive chunk: failures until then may still fail over. */
async function open(stream: AsyncIterable<ChatChunk[]>): Promise<OpenedStream> {
  const rest = stream[Symbol.asyncIterator]();
  const head: ChatChunk[] = [];
  for (;;) {
    const next = await rest.next();
    if (next.done) break;
    head.push(...next.value);
    if (next.value.some(isSubstantive)) break;
  }
  return { head, rest };
}

/** A delta as the client may see it while tool calls and finish are held: its content alone. */
function contentOnly(choice: ChunkChoice): ChunkChoice | null {
  const content = choice.delta.content ?? '';
  return content === '' ? null : { index: choice.index, delta: { content }, finish_reason: null };
}

/** The held part of a whole step: each choice's tool calls and finish, as one delta per choice. */
function heldPart(choices: ChatChoice[]): ChunkChoice[] {
  return choices.map((choice) => ({
    index: choice.index,
    delta: choice.message.tool_calls ? { tool_calls: choice.message.tool_calls.map((call, index) => ({ index, ...call })) } : {},
    finish_reason: choice.finish_reason,
  }));
}

/** Relays a stream; a failure after the first chunk is returned (no failover any more). */
async function relay(ctx: RunContext, opened: OpenedStream, { model, assembler, hold }: { model: RoutableModel; assembler: StreamAssembler; hold: boolean }): Promise<UpstreamError | null> {
  const forward = (chunk: ChatChunk) => {
    assembler.add(chunk);
    const choices = hold ? chunk.choices.map(contentOnly).filter((choice): choice is ChunkChoice => choice !== null) : chunk.choices;
    // Not awaited: one Redis connection keeps the order, and a chunk need not wait for the last one's round trip.
    if (choices.length > 0) ctx.reply({ type: 'delta', requestId: ctx.job.requestId, run: ctx.run, model: model.model, choices }).catch((err: unknown) => ctx.logger.warn({ err }, 'delta not published'));
  };
  try {
    for (const chunk of opened.head) forward(chunk);
    // The provider's iterator itself, not a generator around it: each layer of async generator costs every chunk promises and a turn of the microtask queue.
    for (let next = await opened.rest.next(); !next.done; next = await opened.rest.next()) for (const chunk of next.value) forward(chunk);
    return null;
  } catch (err) {
    return err instanceof UpstreamError ? err : new UpstreamError({ kind: 'invalid_response', provider: model.provider, message: String(err) });
  }
}

/**
 * One call for a whole answer. A model that can stream is asked to, and its chunks assembled: only a
 * stream tells a hung upstream (nothing within the first-byte timeout) from a long generation (chunks
 * keep coming), since a whole answer's first byte comes when it is complete.
 */
async function wholeAnswer({ model, provider, ctx, request }: AttemptCall, promptTokens: () => number): Promise<{ value: { choices: ChatChoice[]; usage: Usage; estimated: boolean }; usage: Usage }> {
  if (!model.supports.stream) {
    const result = await provider.chat(request, { ...ctx, timeoutMs: ctx.callTimeoutMs ?? ctx.timeoutMs });
    return { value: { choices: result.choices, usage: result.usage, estimated: false }, usage: result.usage };
  }
  const assembler = new StreamAssembler();
  for await (const batch of provider.chatStream(request, ctx)) for (const chunk of batch) assembler.add(chunk);
  const { usage, estimated } = assembler.usageOrEstimate(promptTokens);
  return { value: { choices: assembler.choices(), usage, estimated }, usage };
}

/** The prepared request with this step's conversation and tools: copied only when the step changed them (plugin context, a tool loop). */
function preparedFor(ctx: RunContext, input: ModelStepInput): RunContext['prepared'] {
  const { chat } = ctx.prepared;
  if (input.messages === chat.messages && input.tools === chat.tools && input.toolChoice === chat.tool_choice) return ctx.prepared;
  return { ...ctx.prepared, chat: { ...chat, messages: input.messages, tools: input.tools, tool_choice: input.toolChoice } };
}

function optionsFor(ctx: RunContext, input: ModelStepInput) {
  return { ...attemptOptions(ctx), prepared: preparedFor(ctx, input), attempts: input.attempts };
}

/** A non-streaming model step: retries and failover, then the whole answer. */
async function wholeStep(ctx: RunContext, input: ModelStepInput): Promise<ModelStepResult> {
  const success = await runAttempts(optionsFor(ctx, input), (call) => wholeAnswer(call, input.promptTokens));
  ctx.trace.addAttempts(success.records);
  ctx.trace.warnings.push(...success.notes, ...(success.value.estimated ? [ESTIMATED_USAGE_WARNING] : []));
  const latencyMs = success.records.at(-1)?.latencyMs ?? 0;
  ctx.latency.record(success.model.id, latencyMs);
  const { choices, usage } = success.value;
  return { model: success.model, choices, usage, latencyMs, broken: null };
}

/** A streaming model step: retries and failover until the first chunk, then deltas relayed as they arrive. */
async function streamStep(ctx: RunContext, input: ModelStepInput): Promise<ModelStepResult> {
  const success = await runAttempts(optionsFor(ctx, input), async ({ provider, ctx: callCtx, request }) => ({
    value: await open(provider.chatStream(request, callCtx)),
    usage: NO_USAGE,
  }));
  ctx.trace.addAttempts(success.records);
  ctx.trace.warnings.push(...success.notes);
  const assembler = new StreamAssembler();
  const broken = await relay(ctx, success.value, { model: success.model, assembler, hold: input.holdToolCalls });
  const answering = success.records.at(-1);
  const latencyMs = answering ? Date.now() - answering.startedAt : 0;
  const { usage, estimated } = assembler.usageOrEstimate(input.promptTokens);
  if (estimated) ctx.trace.warnings.push(ESTIMATED_USAGE_WARNING);
  if (answering) Object.assign(answering, { latencyMs, usage, ...(broken ? { statusCode: statusOfError(broken), error: broken } : {}) });
  // The stream opened (a success for the breaker) and then broke: that counts against the model too.
  if (broken) ctx.resilience.breakers.record(success.model.id, outcomeOf(broken), 'closed');
  else ctx.latency.record(success.model.id, latencyMs);
  return { model: success.model, choices: assembler.choices(), usage, latencyMs, broken };
}

/** One model step of a request, streamed to the client or not as the request asked; its usage is added to the trace. */
export async function modelStep(ctx: RunContext, input: ModelStepInput): Promise<ModelStepResult> {
  const result = ctx.prepared.stream ? await streamStep(ctx, input) : await wholeStep(ctx, input);
  ctx.trace.addAnswer(result.model, result);
  return result;
}

/**
 * Sends what a step that held its tool calls back kept from the stream, once its answer is known to be
 * the client's: the tool calls left for the client, and each choice's finish.
 */
export async function releaseHeld(ctx: RunContext, { model, choices }: { model: RoutableModel; choices: ChatChoice[] }): Promise<void> {
  if (!ctx.prepared.stream) return;
  await ctx.reply({ type: 'delta', requestId: ctx.job.requestId, run: ctx.run, model: model.model, choices: heldPart(choices) });
}
