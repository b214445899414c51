import { randomUUID } from 'node:crypto';
import { costOf, ZERO_COSTS, type Costs } from '../accounting/costs';
import type { RoutableModel } from '../domain/routable-model';
import type { Prisma } from '../generated/prisma/client';
import type { CompletionJob } from '../queue/payloads';
import type { AttemptRecord } from './attempt-record';
import { chatMessagesOf } from './prepare-request';
import { MASK, maskContent, type Json } from './privacy';

export type LogRow = Prisma.LogCreateManyInput;

/** What one request leaves behind, whatever its outcome. */
export interface RequestOutcome {
  job: CompletionJob;
  privacyLevel: number;
  isTest: boolean;
  model: RoutableModel | null;
  statusCode: number;
  /** The chat completion response, or the error body. */
  response: object;
  responseText: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  costs: Costs;
  savings: Costs;
  latencyMs: number;
  labels: Record<string, unknown>;
  records: AttemptRecord[];
}

/** The last user message's text. The log of a job it cannot read (a bug of ours) is still written, without it. */
function lastUserText(request: CompletionJob['request']): string {
  if (!Array.isArray(request.messages)) return '';
  const last = chatMessagesOf(request.messages).reverse().find((m) => m.role === 'user');
  if (!last || last.content === null) return '';
  return typeof last.content === 'string' ? last.content : last.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

const asJson = (value: unknown) => value as Prisma.InputJsonValue;

function masked<T>(outcome: RequestOutcome, value: T): T | Json {
  return outcome.privacyLevel >= 2 ? maskContent(value) : value;
}

function parentRow(outcome: RequestOutcome): LogRow {
  const { job } = outcome;
  const prompt = lastUserText(job.request);
  return {
    id: job.requestId,
    org_id: job.orgId,
    app_id: job.appId,
    idp_id: job.idpId,
    conversation_id: job.request.conversation_id ?? null,
    parent_request_id: job.request.parent_request_id ?? null,
    model_id: outcome.model?.id ?? null,
    namespace: outcome.model?.namespace ?? null,
    response: asJson(masked(outcome, outcome.response)),
    payload: asJson(masked(outcome, job.request)),
    prompt: outcome.privacyLevel >= 2 ? MASK : prompt,
    response_text: outcome.privacyLevel >= 2 && outcome.responseText !== '' ? MASK : outcome.responseText,
    timestamp: BigInt(job.receivedAt),
    prompt_tokens: outcome.usage.prompt_tokens,
    completion_tokens: outcome.usage.completion_tokens,
    total_tokens: outcome.usage.total_tokens,
    prompt_tokens_cost: outcome.costs.prompt_tokens,
    completion_tokens_cost: outcome.costs.completion_tokens,
    total_tokens_cost: outcome.costs.total_tokens,
    prompt_tokens_cost_savings: outcome.savings.prompt_tokens,
    completion_tokens_cost_savings: outcome.savings.completion_tokens,
    total_tokens_cost_savings: outcome.savings.total_tokens,
    costs_incurred: true,
    privacy_level: outcome.privacyLevel,
    request_type: 'chat_completions',
    status_code: outcome.statusCode,
    is_test: outcome.isTest,
    latency: outcome.latencyMs,
    labels: asJson(outcome.labels),
  };
}

/** An upstream call: stored with its cost but not charged (`costs_incurred: false`). */
function childRow(outcome: RequestOutcome, record: AttemptRecord): LogRow {
  const costs = record.usage.total_tokens > 0 ? costOf(record.model, record.usage) : ZERO_COSTS;
  const error = record.error ? { kind: record.error.kind, status: record.error.status ?? null, message: record.error.message } : null;
  return {
    id: randomUUID(),
    org_id: outcome.job.orgId,
    app_id: outcome.job.appId,
    idp_id: outcome.job.idpId,
    parent_id: outcome.job.requestId,
    model_id: record.model.id,
    namespace: record.model.namespace,
    payload: asJson({ model: record.model.namespace, provider: record.model.provider, retry: record.retry }),
    response: asJson(error ? { error } : { usage: record.usage }),
    response_text: error?.message ?? '',
    timestamp: BigInt(record.startedAt),
    prompt_tokens: record.usage.prompt_tokens,
    completion_tokens: record.usage.completion_tokens,
    total_tokens: record.usage.total_tokens,
    prompt_tokens_cost: costs.prompt_tokens,
    completion_tokens_cost: costs.completion_tokens,
    total_tokens_cost: costs.total_tokens,
    costs_incurred: false,
    privacy_level: outcome.privacyLevel,
    request_type: 'chat_completions',
    status_code: record.statusCode,
    is_test: outcome.isTest,
    latency: record.latencyMs,
  };
}

/** The request's log and one child per upstream call; nothing at privacy level 3. */
export function logRowsFor(outcome: RequestOutcome): { parent: LogRow; children: LogRow[] } | null {
  if (outcome.privacyLevel >= 3) return null;
  return { parent: parentRow(outcome), children: outcome.records.map((record) => childRow(outcome, record)) };
}
