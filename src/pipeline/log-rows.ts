import { randomUUID } from 'node:crypto';
import { costOf, ZERO_COSTS, type Costs } from '../accounting/costs';
import type { CompletionFailure, CompletionResult } from '../domain/completion';
import type { Prisma } from '../generated/prisma/client';
import type { LogInsert } from '../store/log-batcher';
import type { CompletionJob } from '../queue/payloads';
import type { AttemptRecord, PluginRecord, StepRecord } from './attempt-record';
import { lastUserText } from '../domain/chat';
import { MASK, maskContent, type Json } from './privacy';
import type { RunTrace } from './run-trace';
import { storedCallOf, storedLogOf } from './stored-log';
import { privacyPolicyOf } from '../domain/privacy-policy';

export type LogRow = LogInsert;

/** What one request leaves behind, whatever its outcome. */
export interface RequestOutcome {
  job: CompletionJob;
  isTest: boolean;
  trace: RunTrace;
  /** The answer, or the failure (with what was answered before it, for a stream that broke off). */
  ended: { result: CompletionResult } | { failure: CompletionFailure; partial?: CompletionResult };
  /** The answer's text (a streamed answer's result carries no choices). */
  responseText: string;
  /** When a request that has no answer ended (failed or cancelled), in ms since the epoch: its latency is measured to it. */
  endedAt?: number;
}

const asJson = (value: unknown) => value as Prisma.InputJsonValue;

/** Whether the request's privacy level masks its content in the log (level 2). */
const masksContent = (outcome: RequestOutcome): boolean => privacyPolicyOf(outcome.job.privacyLevel).masksContent;

function masked<T>(outcome: RequestOutcome, value: T): T | Json {
  return masksContent(outcome) ? maskContent(value) : value;
}

/** Request fields that name rows: checked as the caller's before the request runs (prepareCompletion). */
const NAMED_ID_FIELDS = ['conversation_id', 'parent_request_id', 'assistant_id', 'assistant_version_id'] as const;

/**
 * The request body as its log keeps it: the wire body the job carries, with the request's messages. One
 * refused before its ids were checked (an unknown id, another organization's, or a failure before the
 * check) keeps none of them: its log must not point at rows that are not the caller's.
 */
function storedPayload(outcome: RequestOutcome): Json {
  const { payload, request } = outcome.job;
  const body: CompletionJob['payload'] = { ...payload, messages: request.chat.messages as unknown as Json };
  if (!outcome.trace.namedIdsChecked) for (const field of NAMED_ID_FIELDS) delete body[field];
  return masksContent(outcome) ? maskContent(body) : (body as Json);
}

/** The ids the request named, once checked as the caller's (else none: see storedPayload). */
/** The last user message's text. The log of a job it cannot read (a bug of ours) is still written, without it. */
function promptOf(request: CompletionJob['request']): string {
  return Array.isArray(request.chat?.messages) ? lastUserText(request.chat.messages) : '';
}

function namedIds(outcome: RequestOutcome): { conversation_id: string | null; parent_request_id: string | null } {
  const stored = outcome.trace.namedIdsChecked ? outcome.job.request.stored : undefined;
  return { conversation_id: stored?.conversationId ?? null, parent_request_id: stored?.parentRequestId ?? null };
}

/** A result as the log keeps it: generated images without their base64 data (megabytes each), their size noted instead. */
function lighterResult(result: CompletionResult): CompletionResult {
  const { report } = result;
  if (!report.artifacts.some((item) => item.type === 'image' && item.b64_json !== undefined)) return result;
  const artifacts = report.artifacts.map((item) =>
    item.type === 'image' && item.b64_json !== undefined ? { ...item, b64_json: `[not stored: ${Math.floor((item.b64_json.length * 3) / 4)} bytes]` } : item,
  );
  return { ...result, report: { ...report, artifacts } };
}

function withoutImageData(ended: RequestOutcome['ended']): RequestOutcome['ended'] {
  if ('result' in ended) return { result: lighterResult(ended.result) };
  return ended.partial ? { ...ended, partial: lighterResult(ended.partial) } : ended;
}

/** What the `latency` column holds when nothing was measured (its default): the API shows it as null. */
const UNKNOWN_LATENCY = -1;

/**
 * A request that failed or was cancelled before any answer: the milliseconds from its arrival until it
 * ended (never negative, whatever the clocks of the API and worker processes say).
 */
function latencyUntilEnded(outcome: RequestOutcome): number {
  return outcome.endedAt === undefined ? UNKNOWN_LATENCY : Math.max(0, outcome.endedAt - outcome.job.receivedAt);
}

/**
 * The request's status, savings and latency, from its answer or its failure (the metrics read them too).
 * Latency is the answering model's time; for a stream cut off, that of what was answered; with no answer
 * at all, the time until the request ended.
 */
export function figuresOf(outcome: RequestOutcome): { statusCode: number; savings: Costs; latencyMs: number } {
  const { ended } = outcome;
  if ('result' in ended) return { statusCode: ended.result.statusCode, savings: ended.result.report.savings, latencyMs: ended.result.report.latencyMs };
  const partial = ended.partial?.report;
  return { statusCode: ended.failure.status, savings: partial?.savings ?? ZERO_COSTS, latencyMs: partial?.latencyMs ?? latencyUntilEnded(outcome) };
}

/**
 * The request's only step, when it is one model call (no retry, failover, plugin or tool turn): the
 * request's own row keeps it, and the log has no child rows. A log has children only when sub-requests
 * were made to get the final answer.
 */
function onlyCall(trace: RunTrace): AttemptRecord | null {
  const [only] = trace.steps;
  return trace.steps.length === 1 && only?.kind === 'model' ? only : null;
}

function parentRow(outcome: RequestOutcome, call: AttemptRecord | null): LogRow {
  const { job, trace } = outcome;
  const model = trace.lastModel();
  const usage = trace.totalUsage();
  const costs = trace.costs();
  const { statusCode, savings, latencyMs } = figuresOf(outcome);
  return {
    id: job.requestId,
    org_id: job.orgId,
    app_id: job.appId,
    idp_id: job.idpId,
    ...namedIds(outcome),
    model_id: model?.id ?? null,
    namespace: model?.namespace ?? null,
    response: asJson(masked(outcome, storedLogOf(withoutImageData(outcome.ended), call && storedCallOf(call)))),
    payload: asJson(storedPayload(outcome)),
    prompt: masksContent(outcome) ? MASK : promptOf(job.request),
    response_text: masksContent(outcome) && outcome.responseText !== '' ? MASK : outcome.responseText,
    timestamp: job.receivedAt,
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens,
    prompt_tokens_cost: costs.prompt_tokens,
    completion_tokens_cost: costs.completion_tokens,
    total_tokens_cost: costs.total_tokens,
    prompt_tokens_cost_savings: savings.prompt_tokens,
    completion_tokens_cost_savings: savings.completion_tokens,
    total_tokens_cost_savings: savings.total_tokens,
    costs_incurred: true,
    privacy_level: job.privacyLevel,
    request_type: 'chat_completions',
    status_code: statusCode,
    is_test: outcome.isTest,
    latency: latencyMs,
    labels: asJson(job.request.labels ?? {}),
  };
}

/** What a step's row says of its step, besides the columns every step's row shares. */
type StepColumns = Pick<
  LogRow,
  | 'model_id'
  | 'namespace'
  | 'payload'
  | 'response'
  | 'response_text'
  | 'prompt_tokens'
  | 'completion_tokens'
  | 'total_tokens'
  | 'prompt_tokens_cost'
  | 'completion_tokens_cost'
  | 'total_tokens_cost'
  | 'costs_incurred'
>;

/**
 * A step's row: the columns every step's row shares, then the step's own, in one object literal. Not
 * `{ ...shared, ...own }`: a spread followed by a dozen more properties cost 7.5 KB of allocation per
 * row (`npm run bench -- --allocations`, the worker's bytes per JSON completion 157.6 against 150.1).
 */
function stepRow(outcome: RequestOutcome, step: StepRecord, own: StepColumns): LogRow {
  const { job } = outcome;
  return {
    id: randomUUID(),
    org_id: job.orgId,
    app_id: job.appId,
    idp_id: job.idpId,
    parent_id: job.requestId,
    timestamp: step.startedAt,
    privacy_level: job.privacyLevel,
    request_type: 'chat_completions',
    status_code: step.statusCode,
    is_test: outcome.isTest,
    latency: step.latencyMs,
    model_id: own.model_id,
    namespace: own.namespace,
    payload: own.payload,
    response: own.response,
    response_text: own.response_text,
    prompt_tokens: own.prompt_tokens,
    completion_tokens: own.completion_tokens,
    total_tokens: own.total_tokens,
    prompt_tokens_cost: own.prompt_tokens_cost,
    completion_tokens_cost: own.completion_tokens_cost,
    total_tokens_cost: own.total_tokens_cost,
    costs_incurred: own.costs_incurred,
  };
}

/** A model call, with its own cost; `costs_incurred` says whether the call cost anything (the parent carries the request's total). */
function modelRow(outcome: RequestOutcome, record: AttemptRecord): LogRow {
  const costs = record.usage.total_tokens > 0 ? costOf(record.model, record.usage) : ZERO_COSTS;
  const error = record.error ? { kind: record.error.kind, status: record.error.status ?? null, message: record.error.message } : null;
  return stepRow(outcome, record, {
    model_id: record.model.id,
    namespace: record.model.namespace,
    payload: asJson({ step: 'model', model: record.model.namespace, provider: record.model.provider, retry: record.retry }),
    response: asJson(error ? { error } : { usage: record.usage }),
    response_text: error?.message ?? '',
    prompt_tokens: record.usage.prompt_tokens,
    completion_tokens: record.usage.completion_tokens,
    total_tokens: record.usage.total_tokens,
    prompt_tokens_cost: costs.prompt_tokens,
    completion_tokens_cost: costs.completion_tokens,
    total_tokens_cost: costs.total_tokens,
    costs_incurred: costs.total_tokens > 0,
  });
}

/** A plugin run: what it was asked and why it failed (masked at level 2), how many results it gave, what it cost. */
function pluginRow(outcome: RequestOutcome, record: PluginRecord): LogRow {
  const payload = { step: 'plugin', plugin: record.plugin, backend: record.backend, query: record.query, cached: record.cached };
  // A plugin's failure message may name what the request gave it (a URL's host, a file): its kind and status stay.
  const error = record.error && masksContent(outcome) ? { ...record.error, message: MASK } : record.error;
  return stepRow(outcome, record, {
    namespace: record.plugin,
    payload: asJson(masksContent(outcome) ? { ...payload, query: MASK } : payload),
    response: asJson(error ? { error } : { results: record.results, artifacts: record.artifacts }),
    response_text: error?.message ?? '',
    // Spelled out, like a model row's (a step's figures read the same whichever kind it is).
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    prompt_tokens_cost: 0,
    completion_tokens_cost: 0,
    total_tokens_cost: record.costUsd,
    costs_incurred: record.costUsd > 0,
  });
}

/**
 * The request's log: one row when its only step was one model call, else the row and one child per
 * step (model call or plugin run); nothing at privacy level 3.
 */
export function logRowsFor(outcome: RequestOutcome): { parent: LogRow; children: LogRow[] } | null {
  if (!privacyPolicyOf(outcome.job.privacyLevel).writesLog) return null;
  const call = onlyCall(outcome.trace);
  if (call) return { parent: parentRow(outcome, call), children: [] };
  const children = outcome.trace.steps.map((step) => (step.kind === 'model' ? modelRow(outcome, step) : pluginRow(outcome, step)));
  return { parent: parentRow(outcome, null), children };
}
