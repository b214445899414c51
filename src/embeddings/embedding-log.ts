import type { PrivacyPolicy } from '../domain/privacy-policy';
import { randomUUID } from 'node:crypto';
import { costOf, savingsOf, ZERO_COSTS, type Costs } from '../accounting/costs';
import type { Usage } from '../domain/chat';
import type { EmbeddingResult } from '../domain/embedding';
import type { RoutableModel } from '../domain/routable-model';
import type { ApiError } from '../errors/api-error';
import type { Prisma } from '../generated/prisma/client';
import type { AttemptRecord } from '../pipeline/attempt-record';
import type { LogRow } from '../pipeline/log-rows';
import { MASK } from '../pipeline/privacy';
import type { EmbeddingRequestBody } from '../schemas/embeddings';

/** What one accepted embeddings request leaves behind, whatever its outcome. */
export interface EmbeddingOutcome {
  requestId: string;
  orgId: string;
  appId: string;
  idpId: string;
  /** Epoch ms. */
  receivedAt: number;
  privacy: PrivacyPolicy;
  /** A sandbox Space's request. */
  isTest: boolean;
  request: EmbeddingRequestBody;
  /** The model chosen; null when none could be. */
  model: RoutableModel | null;
  /** The Space's benchmark when it is an embedding model (savings are 0 otherwise). */
  benchmark: RoutableModel | null;
  records: AttemptRecord[];
  ended: { result: EmbeddingResult } | { error: ApiError };
}

const asJson = (value: unknown) => value as Prisma.InputJsonValue;

const usageOf = (promptTokens: number): Usage => ({ prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens });

/** The inputs as the log keeps them: at privacy level 2 each one is masked (token ids are text too), so only their number shows. */
function loggedInput(outcome: EmbeddingOutcome): EmbeddingRequestBody['input'] {
  if (!outcome.privacy.masksContent) return outcome.request.input;
  return typeof outcome.request.input === 'string' ? MASK : outcome.request.input.map(() => MASK);
}

function firstText(input: EmbeddingRequestBody['input']): string {
  if (typeof input === 'string') return input;
  const first = input[0];
  return typeof first === 'string' ? first : '';
}

/** The answer without its vectors (megabytes, and of no use to someone reading logs): model, size and usage. */
function loggedResponse(outcome: EmbeddingOutcome): unknown {
  if ('error' in outcome.ended) {
    const { status, code, message } = outcome.ended.error;
    return { error: { status, code, message: outcome.privacy.masksContent ? MASK : message } };
  }
  const { vectors, promptTokens } = outcome.ended.result;
  return { model: outcome.model?.model ?? null, vectors: vectors.length, dimensions: vectors[0]?.length ?? 0, usage: usageOf(promptTokens) };
}

/** The request's tokens, what they cost at the model's price, and the savings against the benchmark (USD). */
export function embeddingFigures(outcome: Pick<EmbeddingOutcome, 'model' | 'benchmark' | 'ended'>): { usage: Usage; costs: Costs; savings: Costs } {
  const { model } = outcome;
  const usage = usageOf('result' in outcome.ended ? outcome.ended.result.promptTokens : 0);
  const costs = model && usage.total_tokens > 0 ? costOf(model, usage) : ZERO_COSTS;
  const savings = 'result' in outcome.ended ? savingsOf(outcome.benchmark, usage, costs) : ZERO_COSTS;
  return { usage, costs, savings };
}

function parentRow(outcome: EmbeddingOutcome): LogRow {
  const { model } = outcome;
  const { usage, costs, savings } = embeddingFigures(outcome);
  const answered = outcome.records.find((record) => record.statusCode === 200);
  return {
    id: outcome.requestId,
    org_id: outcome.orgId,
    app_id: outcome.appId,
    idp_id: outcome.idpId,
    model_id: model?.id ?? null,
    namespace: model?.namespace ?? null,
    payload: asJson({ ...outcome.request, input: loggedInput(outcome) }),
    response: asJson(loggedResponse(outcome)),
    prompt: outcome.privacy.masksContent ? MASK : firstText(outcome.request.input),
    // An upstream's refusal may quote the input.
    response_text: 'error' in outcome.ended ? (outcome.privacy.masksContent ? MASK : outcome.ended.error.message) : '',
    timestamp: outcome.receivedAt,
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: 0,
    total_tokens: usage.total_tokens,
    prompt_tokens_cost: costs.prompt_tokens,
    completion_tokens_cost: 0,
    total_tokens_cost: costs.total_tokens,
    prompt_tokens_cost_savings: savings.prompt_tokens,
    completion_tokens_cost_savings: 0,
    total_tokens_cost_savings: savings.total_tokens,
    costs_incurred: true,
    privacy_level: outcome.privacy.level,
    request_type: 'embeddings',
    status_code: 'error' in outcome.ended ? outcome.ended.error.status : 200,
    is_test: outcome.isTest,
    latency: answered?.latencyMs ?? -1,
    labels: asJson({}),
  };
}

/** One upstream call (a retry is a call of its own), with what it cost. */
function attemptRow(outcome: EmbeddingOutcome, record: AttemptRecord): LogRow {
  const costs = record.usage.total_tokens > 0 ? costOf(record.model, record.usage) : ZERO_COSTS;
  const error = record.error ? { kind: record.error.kind, status: record.error.status ?? null, message: record.error.message } : null;
  return {
    id: randomUUID(),
    org_id: outcome.orgId,
    app_id: outcome.appId,
    idp_id: outcome.idpId,
    parent_id: outcome.requestId,
    timestamp: record.startedAt,
    privacy_level: outcome.privacy.level,
    request_type: 'embeddings',
    status_code: record.statusCode,
    is_test: outcome.isTest,
    latency: record.latencyMs,
    model_id: record.model.id,
    namespace: record.model.namespace,
    payload: asJson({ step: 'model', model: record.model.namespace, provider: record.model.provider, retry: record.retry }),
    response: asJson(error ? { error } : { usage: record.usage }),
    response_text: error?.message ?? '',
    prompt_tokens: record.usage.prompt_tokens,
    completion_tokens: 0,
    total_tokens: record.usage.total_tokens,
    prompt_tokens_cost: costs.prompt_tokens,
    completion_tokens_cost: 0,
    total_tokens_cost: costs.total_tokens,
    costs_incurred: costs.total_tokens > 0,
  };
}

/** The request's log and one child per upstream call; nothing at privacy level 3. */
export function embeddingLogRows(outcome: EmbeddingOutcome): { parent: LogRow; children: LogRow[] } | null {
  if (!outcome.privacy.writesLog) return null;
  return { parent: parentRow(outcome), children: outcome.records.map((record) => attemptRow(outcome, record)) };
}
