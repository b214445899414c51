import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { ObservabilityConfig } from '../config/observability';

/** The instrumentation scope of every span Switchyard makes. */
const SCOPE = 'switchyard';

export interface Tracing {
  /** Sends the spans buffered so far now, rather than at the next batch. */
  flush(): Promise<void>;
  /** Sends the spans still buffered and stops exporting. */
  shutdown(): Promise<void>;
}

const OFF: Tracing = { flush: async () => undefined, shutdown: async () => undefined };

let enabled = false;

/** Whether spans are exported: without an OTLP endpoint the API stays the no-op one and nothing is set up per request. */
export function tracingEnabled(): boolean {
  return enabled;
}

/** The tracer (the API's no-op tracer until `startTracing` registered a provider). */
export function tracer(): Tracer {
  return trace.getTracer(SCOPE);
}

/**
 * Registers a tracer provider exporting over OTLP/HTTP (JSON) when an endpoint is configured, with the
 * W3C trace-context propagator and an AsyncLocalStorage context manager; does nothing otherwise.
 */
export function startTracing(config: Pick<ObservabilityConfig, 'tracesUrl' | 'otlpHeaders' | 'serviceName' | 'exportDelayMs'>, role: string): Tracing {
  if (!config.tracesUrl) return OFF;
  const exporter = new OTLPTraceExporter({ url: config.tracesUrl, headers: config.otlpHeaders });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName, 'switchyard.role': role }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: config.exportDelayMs })],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  enabled = true;
  return {
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      enabled = false;
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
