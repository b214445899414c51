import { runAttempts } from './attempt-runner';
import type { RequestOutcome } from './log-rows';
import { buildResponse } from './response-builder';
import { attemptOptions, factsOf, successOutcome, type RunContext } from './run-context';

/** A non-streaming completion: call with retries and failover, reply with the whole answer. */
export async function wholeCompletion(ctx: RunContext): Promise<RequestOutcome> {
  const success = await runAttempts(attemptOptions(ctx), async ({ provider, ctx: callCtx, request }) => {
    const result = await provider.chat(request, callCtx);
    return { value: result, usage: result.usage };
  });
  const answering = success.records.at(-1);
  const latencyMs = answering?.latencyMs ?? 0;
  ctx.latency.record(success.model.id, latencyMs);
  const facts = factsOf(ctx, { model: success.model, usage: success.value.usage, records: success.records, notes: success.notes, latencyMs });
  const response = buildResponse(facts, success.value.choices);
  await ctx.reply({ type: 'done', requestId: ctx.job.requestId, run: ctx.run, response });
  return successOutcome(ctx, facts, { response, choices: success.value.choices, records: success.records });
}
