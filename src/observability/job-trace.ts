import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context } from '@opentelemetry/api';
import type { Job } from 'bullmq';
import { tracer, tracingEnabled } from './tracing';

/** W3C trace-context fields (`traceparent`, `tracestate`) as a job payload carries them. */
export type TraceCarrier = Record<string, string>;

/**
 * The active span's context for a job payload (`{ traceContext }`), so the worker's span continues the
 * API's trace; an empty object when tracing is off or no span is active, leaving the payload as it was.
 */
export function traceContextField(): { traceContext?: TraceCarrier } {
  if (!tracingEnabled()) return {};
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length > 0 ? { traceContext: carrier } : {};
}

function parentOf(data: unknown): Context {
  const carrier = typeof data === 'object' && data !== null && 'traceContext' in data ? data.traceContext : undefined;
  return typeof carrier === 'object' && carrier !== null ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT;
}

/** Runs a job under its span: a child of the span that queued it (from the payload), else a trace of its own. */
export async function inJobSpan<T>(queue: string, job: Job, work: () => Promise<T>): Promise<T> {
  const parent = parentOf(job.data);
  const span = tracer().startSpan(
    `job ${queue}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': 'bullmq',
        'messaging.destination.name': queue,
        'messaging.message.id': job.id ?? '',
        'switchyard.job.attempt': job.attemptsMade + 1,
      },
    },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), work);
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.setAttribute('error.type', err instanceof Error ? err.name : 'unknown');
    throw err;
  } finally {
    span.end();
  }
}
