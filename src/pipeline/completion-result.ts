import { savingsOf } from '../accounting/costs';
import type { CompletionResult, ResultChoice, RunReport } from '../domain/completion';
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

/** How the answer was reached, from the run's plan and trace. */
function reportOf(run: Run, model: RoutableModel, error: string | undefined): RunReport {
  const { trace, prepared } = run;
  const usage = trace.totalUsage();
  const errors = [...trace.errors, ...(error ? [error] : [])];
  return {
    appId: run.space.id,
    costs: trace.costs(),
    savings: savingsOf(run.space.benchmark, usage, trace.modelCost()),
    latencyMs: trace.answered?.latencyMs ?? 0,
    retries: trace.retries(),
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

/** A finished request, from everything its run gathered: the answer, and the report of how it was reached. */
export function completionResult(
  run: Run,
  { model, choices, statusCode, error }: { model: RoutableModel; choices: ResultChoice[]; statusCode: number; error?: string },
): CompletionResult {
  return {
    requestId: run.job.requestId,
    created: Math.floor(run.job.receivedAt / 1000),
    model: identityOf(model),
    choices,
    usage: run.trace.totalUsage(),
    statusCode,
    report: reportOf(run, model, error),
  };
}
