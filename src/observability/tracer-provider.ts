import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { ObservabilityConfig } from '../config/observability';

export type ExportSettings = Pick<ObservabilityConfig, 'otlpHeaders' | 'serviceName' | 'exportDelayMs'> & { tracesUrl: string };

/**
 * The OpenTelemetry SDK, set up as the global tracer provider: OTLP/HTTP (JSON) export in batches, the W3C
 * trace-context propagator and an AsyncLocalStorage context manager. Loaded only when tracing is configured
 * (the SDK takes a few hundred ms to load).
 */
export function registerTracerProvider(settings: ExportSettings, role: string): { flush(): Promise<void>; shutdown(): Promise<void> } {
  const exporter = new OTLPTraceExporter({ url: settings.tracesUrl, headers: settings.otlpHeaders });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName, 'switchyard.role': role }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: settings.exportDelayMs })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
