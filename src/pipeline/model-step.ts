import type { ChatChoice, ChatChunk, ChatMessage, ChunkChoice, ToolChoice, ToolDefinition, Usage } from '../domain/chat';
import type { RoutableModel } from '../domain/routable-model';
import { UpstreamError } from '../errors/upstream-error';
import { outcomeOf } from '../resilience/circuit-breakers';
import { NO_USAGE, statusOfError } from './attempt-record';
import { isSubstantive, runAttempts, type AttemptCall } from './attempt-runner';
import type { Run } from './run';
import { attemptOptions, type StepServices } from './step-services';
import { ESTIMATED_USAGE_WARNING, StreamAssembler } from './stream-assembler';

/** What one model step is asked: the conversation so far and the tools on offer. */
export interface ModelStepInput {
  messages: ChatMessage[];
  tools: ToolDefinition[] | undefined;
  toolChoice: ToolChoice | undefined;
  /** Models to try, in order. */
  attempts: Iterable<RoutableModel>;
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
async function relay(
  run: Run,
  opened: OpenedStream,
  { model, assembler, hold }: { model: RoutableModel; assembler: StreamAssembler; hold: boolean },
): Promise<UpstreamError | null> {
  const forward = (chunk: ChatChunk) => {
    assembler.add(chunk);
    const choices = hold ? chunk.choices.map(contentOnly).filter((choice): choice is ChunkChoice => choice !== null) : chunk.choices;
    // Not awaited: one Redis connection keeps the order, and a chunk need not wait for the last one's round trip.
    if (choices.length > 0)
      run
        .reply({ type: 'delta', requestId: run.job.requestId, run: run.id, model: model.model, choices })
        .catch((err: unknown) => run.logger.warn({ err }, 'delta not published'));
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
async function wholeAnswer(
  { model, provider, ctx, request }: AttemptCall,
  promptTokens: () => number,
): Promise<{ value: { choices: ChatChoice[]; usage: Usage; estimated: boolean }; usage: Usage }> {
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
function preparedFor(run: Run, input: ModelStepInput): Run['prepared'] {
  const { chat } = run.prepared;
  if (input.messages === chat.messages && input.tools === chat.tools && input.toolChoice === chat.tool_choice) return run.prepared;
  return { ...run.prepared, chat: { ...chat, messages: input.messages, tools: input.tools, tool_choice: input.toolChoice } };
}

function optionsFor(run: Run, services: StepServices, input: ModelStepInput) {
  return { ...attemptOptions(run, services), prepared: preparedFor(run, input), attempts: input.attempts };
}

/** A non-streaming model step: retries and failover, then the whole answer (a `then`: each `async` layer costs a promise). */
function wholeStep(run: Run, services: StepServices, input: ModelStepInput): Promise<ModelStepResult> {
  return runAttempts(optionsFor(run, services, input), (call) => wholeAnswer(call, input.promptTokens)).then((success) => {
    run.trace.addAttempts(success.records);
    const { warnings } = run.trace;
    for (const note of success.notes) warnings.push(note);
    if (success.value.estimated) warnings.push(ESTIMATED_USAGE_WARNING);
    const latencyMs = success.records.at(-1)?.latencyMs ?? 0;
    services.latency.record(success.model.id, latencyMs);
    const { choices, usage } = success.value;
    return { model: success.model, choices, usage, latencyMs, broken: null };
  });
}

/**
 * A streaming model step: retries and failover until the first chunk, then deltas relayed as they arrive.
 * `hold`: the step offers tools the worker runs itself (plugins under auto_tools), so tool-call deltas
 * and the finish are held back until the step ends, since a call to one of them is not the client's.
 */
async function streamStep(run: Run, services: StepServices, { input, hold }: { input: ModelStepInput; hold: boolean }): Promise<ModelStepResult> {
  const success = await runAttempts(optionsFor(run, services, input), async ({ provider, ctx: callCtx, request }) => ({
    value: await open(provider.chatStream(request, callCtx)),
    usage: NO_USAGE,
  }));
  run.trace.addAttempts(success.records);
  run.trace.warnings.push(...success.notes);
  const assembler = new StreamAssembler();
  const broken = await relay(run, success.value, { model: success.model, assembler, hold });
  const answering = success.records.at(-1);
  const latencyMs = answering ? Date.now() - answering.startedAt : 0;
  const { usage, estimated } = assembler.usageOrEstimate(input.promptTokens);
  if (estimated) run.trace.warnings.push(ESTIMATED_USAGE_WARNING);
  if (answering) Object.assign(answering, { latencyMs, usage, ...(broken ? { statusCode: statusOfError(broken), error: broken } : {}) });
  // The stream opened (a success for the breaker) and then broke: that counts against the model too.
  if (broken) services.resilience.breakers.record(success.model.id, outcomeOf(broken), 'closed');
  else services.latency.record(success.model.id, latencyMs);
  return { model: success.model, choices: assembler.choices(), usage, latencyMs, broken };
}

/** The step's answer counted in the trace's usage. */
function answered(run: Run, result: ModelStepResult): ModelStepResult {
  run.trace.addAnswer(result.model, result);
  return result;
}

/** One model step of a request, streamed to the client or not as the request asked; its usage is added to the trace. */
export function modelStep(run: Run, services: StepServices, input: ModelStepInput): Promise<ModelStepResult> {
  const step = run.prepared.stream ? streamStep(run, services, { input, hold: false }) : wholeStep(run, services, input);
  return step.then((result) => answered(run, result));
}

/**
 * A model step offered tools the worker runs itself (plugins under auto_tools): as modelStep, but a
 * stream's tool-call deltas and finish are held back until the step ends (releaseHeld sends them once
 * they are known to be the client's).
 */
export async function modelStepHoldingToolCalls(run: Run, services: StepServices, input: ModelStepInput): Promise<ModelStepResult> {
  const result = run.prepared.stream ? await streamStep(run, services, { input, hold: true }) : await wholeStep(run, services, input);
  return answered(run, result);
}

/**
 * Sends what a step that held its tool calls back kept from the stream, once its answer is known to be
 * the client's: the tool calls left for the client, and each choice's finish.
 */
export async function releaseHeld(run: Run, { model, choices }: { model: RoutableModel; choices: ChatChoice[] }): Promise<void> {
  if (!run.prepared.stream) return;
  await run.reply({ type: 'delta', requestId: run.job.requestId, run: run.id, model: model.model, choices: heldPart(choices) });
}
