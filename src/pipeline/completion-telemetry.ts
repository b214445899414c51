import type { Logger } from 'pino';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { AttemptRecord, PluginRecord } from './attempt-record';
import { figuresOf, type RequestOutcome } from './log-rows';
import { metrics } from '../observability/metrics';
import { tracer, tracingEnabled } from '../observability/tracing';

/**
 * OpenTelemetry's GenAI attribute names (semantic-conventions' incubating entry, which this project's
 * module resolution cannot import; OpenTelemetry advises copying incubating names).
 */
const GEN_AI = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
} as const;

function pluginOutcome(record: PluginRecord): string {
  if (record.error) return record.error.kind === 'unavailable' ? 'unavailable' : 'failed';
  return record.cached ? 'cached' : 'ok';
}

/**
 * Counts one model call; `failover` when an earlier call of the request, to another model, failed. Each
 * metric gets its labels as one literal: `{ ...labels, status }` cost about 1 µs more per call, in
 * building an object whose shape is made property by property.
 */
function countCall(record: AttemptRecord, failover: boolean): void {
  const m = metrics();
  const { provider, model } = record.model;
  m.upstreamCalls.inc({ provider, model, status: String(record.statusCode) });
  m.upstreamDuration.observe({ provider, model }, Math.max(0, record.latencyMs) / 1000);
  if (record.error) m.upstreamErrors.inc({ provider, model, kind: record.error.kind });
  if (record.retry > 0) m.upstreamRetries.inc({ provider, model });
  if (failover) m.upstreamFailovers.inc({ provider, model });
}

/** The request's figures by Space: status, tokens, cost, savings (and what it cost beyond the benchmark). */
function countRequest(outcome: RequestOutcome): void {
  const m = metrics();
  const app_id = outcome.job.appId;
  const { statusCode, savings } = figuresOf(outcome);
  const usage = outcome.trace.totalUsage();
  m.completions.inc({ app_id, status: String(statusCode) });
  m.tokens.inc({ app_id, kind: 'prompt' }, usage.prompt_tokens);
  m.tokens.inc({ app_id, kind: 'completion' }, usage.completion_tokens);
  m.costUsd.inc({ app_id }, Math.max(0, outcome.trace.costs().total_tokens));
  if (savings.total_tokens > 0) m.savingsUsd.inc({ app_id }, savings.total_tokens);
  else if (savings.total_tokens < 0) m.overspendUsd.inc({ app_id }, -savings.total_tokens);
}

/** A finished step as a child span of the job's: its own start and end, provider, model, status; never content. */
function stepSpan(record: AttemptRecord | PluginRecord): void {
  const end = record.startedAt + Math.max(0, record.latencyMs);
  const attributes =
    record.kind === 'model'
      ? {
          [GEN_AI.operation]: 'chat',
          [GEN_AI.provider]: record.model.provider,
          [GEN_AI.requestModel]: record.model.model,
          'switchyard.retry': record.retry,
          [GEN_AI.inputTokens]: record.usage.prompt_tokens,
          [GEN_AI.outputTokens]: record.usage.completion_tokens,
        }
      : {
          'switchyard.plugin': record.plugin,
          'switchyard.plugin.backend': record.backend,
          'switchyard.plugin.cached': record.cached,
          'switchyard.plugin.results': record.results,
        };
  const name = record.kind === 'model' ? `chat ${record.model.model}` : `plugin ${record.plugin}`;
  const span = tracer().startSpan(
    name,
    {
      kind: record.kind === 'model' ? SpanKind.CLIENT : SpanKind.INTERNAL,
      startTime: record.startedAt,
      attributes: { ...attributes, 'switchyard.status_code': record.statusCode },
    },
    context.active(),
  );
  if (record.error) {
    span.setAttribute('error.type', record.error.kind);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end(end);
}

/** What an embeddings request (answered in the API process, outside any job) adds to the metrics. */
export interface EmbeddingFigures {
  appId: string;
  records: AttemptRecord[];
  promptTokens: number;
  /** USD. */
  cost: number;
  /** USD against the Space's benchmark; negative when dearer. */
  savings: number;
}

/** Its upstream calls and its Space's tokens, cost and savings, in the same counters as a completion's. */
export function recordEmbeddings(figures: EmbeddingFigures, logger: Logger): void {
  try {
    const m = metrics();
    figures.records.forEach((call) => countCall(call, false));
    m.tokens.inc({ app_id: figures.appId, kind: 'prompt' }, figures.promptTokens);
    m.costUsd.inc({ app_id: figures.appId }, Math.max(0, figures.cost));
    if (figures.savings > 0) m.savingsUsd.inc({ app_id: figures.appId }, figures.savings);
    else if (figures.savings < 0) m.overspendUsd.inc({ app_id: figures.appId }, -figures.savings);
  } catch (err) {
    logger.warn({ err }, 'embeddings metrics not recorded');
  }
}

/**
 * Metrics and spans of one finished completion, read from the same records its log is written from
 * (so they agree, and cost nothing more than a pass over its steps). Spans are made once the steps
 * ended, with their recorded times, as children of the active (job) span.
 */
export function recordCompletion(outcome: RequestOutcome, logger: Logger): void {
  try {
    record(outcome);
  } catch (err) {
    logger.warn({ err }, 'completion metrics not recorded');
  }
}

function record(outcome: RequestOutcome): void {
  countRequest(outcome);
  let previousFailed: AttemptRecord | null = null;
  for (const step of outcome.trace.steps) {
    if (step.kind === 'plugin') metrics().pluginRuns.inc({ plugin: step.plugin, outcome: pluginOutcome(step) });
    else {
      countCall(step, previousFailed !== null && previousFailed.model.id !== step.model.id);
      previousFailed = step.error ? step : null;
    }
  }
  if (!tracingEnabled()) return;
  const job = trace.getActiveSpan();
  job?.setAttributes({
    'switchyard.app_id': outcome.job.appId,
    'switchyard.log_id': outcome.job.requestId,
    'switchyard.status_code': figuresOf(outcome).statusCode,
    'switchyard.privacy_level': outcome.job.privacyLevel,
  });
  for (const step of outcome.trace.steps) stepSpan(step);
}
