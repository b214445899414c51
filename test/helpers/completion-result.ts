import { ZERO_COSTS } from '../../src/accounting/costs';
import type { CompletionAnswer, CompletionResult, FinishedAnswer, RunReport } from '../../src/domain/completion';
import { metadataJsonOf } from '../../src/formats/completion-metadata';

/** A finished completion for the formatters' and the log's tests: a small answer and an empty report, each overridable. */
export function testResult({ answer = {}, report = {} }: { answer?: Partial<CompletionAnswer>; report?: Partial<RunReport> } = {}): CompletionResult {
  return {
    requestId: '00000000-0000-4000-8000-000000000001',
    created: 0,
    model: { id: 'm', model: 'gpt-4.1-mini', namespace: 'gpt-4.1-mini', provider: 'openai', owner: 'openai', at: '' },
    choices: [],
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
    statusCode: 200,
    ...answer,
    report: {
      appId: 'app',
      costs: ZERO_COSTS,
      savings: ZERO_COSTS,
      latencyMs: 1,
      retries: 0,
      warnings: [],
      labels: {},
      scores: { best_models: [], candidates: [], router: { version: 'v', kind: 'k', smart_learn: false, explored: false } },
      score: 0,
      searchResults: [],
      artifacts: [],
      plugins: [],
      ...report,
    },
  };
}

/** A result as an edge receives it from the worker: the answer, and the metadata serialised once. */
export function finishedOf(result: CompletionResult): FinishedAnswer {
  const { report: _report, ...answer } = result;
  return { answer, metadata: metadataJsonOf(result) };
}
