import type { ChatChoice, Usage } from '../domain/chat';
import { runAttempts, type AttemptCall } from './attempt-runner';
import type { RequestOutcome } from './log-rows';
import { buildResponse } from './response-builder';
import { attemptOptions, factsOf, successOutcome, type RunContext } from './run-context';
import { ESTIMATED_USAGE_WARNING, StreamAssembler } from './stream-assembler';

interface WholeAnswer {
  choices: ChatChoice[];
  usage: Usage;
  /** The upstream reported no usage: it was counted. */
  estimated: boolean;
}

/**
 * One call for a whole answer. A model that can stream is asked to, and its chunks assembled: only a
 * stream tells a hung upstream (nothing within the first-byte timeout) from a long generation (chunks
 * keep coming), since a whole answer's first byte comes when it is complete. A model that cannot
 * stream is bounded by the whole call's timeout alone.
 */
async function wholeAnswer({ model, provider, ctx, request }: AttemptCall, promptTokens: number): Promise<{ value: WholeAnswer; usage: Usage }> {
  if (!model.supports.stream) {
    const result = await provider.chat(request, { ...ctx, timeoutMs: ctx.callTimeoutMs ?? ctx.timeoutMs });
    return { value: { choices: result.choices, usage: result.usage, estimated: false }, usage: result.usage };
  }
  const assembler = new StreamAssembler();
  for await (const chunk of provider.chatStream(request, ctx)) assembler.add(chunk);
  const { usage, estimated } = assembler.usageOrEstimate(promptTokens);
  return { value: { choices: assembler.choices(), usage, estimated }, usage };
}

/** A non-streaming completion: call with retries and failover, reply with the whole answer. */
export async function wholeCompletion(ctx: RunContext, promptTokens: number): Promise<RequestOutcome> {
  const success = await runAttempts(attemptOptions(ctx), (call) => wholeAnswer(call, promptTokens));
  const answering = success.records.at(-1);
  const latencyMs = answering?.latencyMs ?? 0;
  ctx.latency.record(success.model.id, latencyMs);
  const { choices, usage, estimated } = success.value;
  const facts = factsOf(ctx, {
    model: success.model,
    usage,
    records: success.records,
    notes: success.notes,
    latencyMs,
    extraWarnings: estimated ? [ESTIMATED_USAGE_WARNING] : [],
  });
  const response = buildResponse(facts, choices);
  await ctx.reply({ type: 'done', requestId: ctx.job.requestId, run: ctx.run, response });
  return successOutcome(ctx, facts, { response, choices, records: success.records });
}
