import { savingsOf } from '../accounting/costs';
import type { CompletionResult, ResultChoice } from '../domain/completion';
import type { RoutableModel } from '../domain/routable-model';
import type { Run } from './run';

function identityOf(model: RoutableModel): CompletionResult['model'] {
  return { id: model.id, model: model.model, namespace: model.namespace, provider: model.provider, owner: model.owner, at: model.at };
}

/** The router's score of the model that answered: the plan's first model's, or its candidate's. */
function scoreOf({ plan }: Run, model: RoutableModel): number {
  if (plan.first.id === model.id) return plan.score;
  return plan.scores.candidates.find((candidate) => candidate.model === model.model)?.score ?? 0;
}

/** A finished request, from everything its run gathered. */
export function completionResult(
  run: Run,
  { model, choices, statusCode, error }: { model: RoutableModel; choices: ResultChoice[]; statusCode: number; error?: string },
): CompletionResult {
  const { trace, prepared } = run;
  const usage = trace.totalUsage();
  const errors = [...trace.errors, ...(error ? [error] : [])];
  return {
    requestId: run.job.requestId,
    appId: run.space.id,
    created: Math.floor(run.job.receivedAt / 1000),
    model: identityOf(model),
    choices,
    usage,
    costs: trace.costs(),
    savings: savingsOf(run.space.benchmark, usage, trace.modelCost()),
    latencyMs: trace.answered?.latencyMs ?? 0,
    retries: trace.retries(),
    statusCode,
    warnings: [...run.plan.warnings, ...trace.warnings],
    labels: prepared.labels,
    scores: run.plan.scores,
    score: scoreOf(run, model),
    temperature: prepared.chat.temperature,
    maxTokens: prepared.chat.max_tokens,
    searchResults: trace.searchResults,
    artifacts: trace.artifacts,
    plugins: trace.plugins,
    // A plain property (undefined without auto_tools): no object is made for requests without it.
    autoTools: trace.autoTools ?? undefined,
    // Last: properties that follow a spread are added one by one, and cost allocations.
    ...(errors.length > 0 ? { error: errors.join(' ') } : {}),
  };
}
