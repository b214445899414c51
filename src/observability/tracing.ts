import { trace, type Tracer } from '@opentelemetry/api';
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

/** Exports spans over OTLP/HTTP when an endpoint is configured; otherwise does nothing, not even load the SDK. */
export async function startTracing(
  config: Pick<ObservabilityConfig, 'tracesUrl' | 'otlpHeaders' | 'serviceName' | 'exportDelayMs'>,
  role: string,
): Promise<Tracing> {
  const { tracesUrl } = config;
  if (!tracesUrl) return OFF;
  const { registerTracerProvider } = await import('./tracer-provider');
  const provider = registerTracerProvider({ ...config, tracesUrl }, role);
  enabled = true;
  return {
    flush: () => provider.flush(),
    shutdown: async () => {
      enabled = false;
      await provider.shutdown();
    },
  };
}
