import { z } from 'zod';

type Env = Record<string, string | undefined>;

/** Environment variable behind each key of the observability configuration, for error messages. */
const ENV_NAMES = {
  metricsToken: 'METRICS_TOKEN',
  metricsPort: 'METRICS_PORT',
  metricsHost: 'METRICS_HOST',
  tracesEndpoint: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  otlpEndpoint: 'OTEL_EXPORTER_OTLP_ENDPOINT',
  otlpHeaders: 'OTEL_EXPORTER_OTLP_HEADERS',
  serviceName: 'OTEL_SERVICE_NAME',
  exportDelayMs: 'OTEL_BSP_SCHEDULE_DELAY',
} as const;

/** `key=value,key2=value2` (the OTLP exporters' header list), values percent-decoded. */
const headerListSchema = z
  .string()
  .transform((value, ctx): Record<string, string> => {
    const headers: Record<string, string> = {};
    for (const pair of value
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '')) {
      const at = pair.indexOf('=');
      if (at <= 0) {
        ctx.addIssue({ code: 'custom', message: `'${pair.slice(0, 40)}' is not key=value` });
        return z.NEVER;
      }
      headers[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
    }
    return headers;
  })
  .optional();

const endpointSchema = z.url({ protocol: /^https?$/ }).optional();

const observabilityInputSchema = z.strictObject({
  /** Bearer token `/metrics` asks for; without it the API port serves no metrics (they name Spaces). */
  metricsToken: z.string().min(16, 'must be at least 16 characters').optional(),
  /** A listener of its own for `/metrics` (the supervisor's, or this process's); none when unset. */
  metricsPort: z.coerce.number().int().min(0).max(65535).optional(),
  /** Interface of the metrics listener: loopback by default, so only the machine (or a sidecar) scrapes it. */
  metricsHost: z.string().min(1).default('127.0.0.1'),
  tracesEndpoint: endpointSchema,
  otlpEndpoint: endpointSchema,
  otlpHeaders: headerListSchema,
  /** `service.name` of the exported spans. */
  serviceName: z.string().min(1).default('switchyard'),
  /** How often buffered spans are exported, in ms (the OpenTelemetry default: 5000). */
  exportDelayMs: z.coerce.number().int().positive().default(5000),
});

export interface ObservabilityConfig {
  metricsToken: string | null;
  metricsPort: number | null;
  metricsHost: string;
  /** Where spans are sent (OTLP/HTTP JSON); null turns tracing off entirely. */
  tracesUrl: string | null;
  /** Sent with every export (e.g. a hosted backend's key). */
  otlpHeaders: Record<string, string>;
  serviceName: string;
  /** How often buffered spans are exported, in ms. */
  exportDelayMs: number;
}

export const observabilityConfigSchema = z.custom<ObservabilityConfig>();

const nonEmpty = (value: string | undefined): string | undefined => (value === undefined || value.trim() === '' ? undefined : value.trim());

/**
 * The traces URL as the OTLP exporters' specification has it: `..._TRACES_ENDPOINT` is used as given,
 * the general `OTEL_EXPORTER_OTLP_ENDPOINT` gets `/v1/traces` appended.
 */
function tracesUrlOf(traces: string | undefined, general: string | undefined): string | null {
  if (traces) return traces;
  if (general) return `${general.replace(/\/+$/, '')}/v1/traces`;
  return null;
}

/** Reads `METRICS_*` and the standard `OTEL_*` variables Switchyard honours; throws naming the variable. */
export function readObservabilityConfig(env: Env): ObservabilityConfig {
  const parsed = observabilityInputSchema.safeParse(Object.fromEntries(Object.entries(ENV_NAMES).map(([key, name]) => [key, nonEmpty(env[name])])));
  if (!parsed.success) {
    const describe = (issue: z.core.$ZodIssue) => `${ENV_NAMES[String(issue.path[0]) as keyof typeof ENV_NAMES] ?? String(issue.path[0])}: ${issue.message}`;
    throw new Error(`Invalid configuration:\n${parsed.error.issues.map((issue) => `  - ${describe(issue)}`).join('\n')}`);
  }
  const input = parsed.data;
  return Object.freeze({
    metricsToken: input.metricsToken ?? null,
    metricsPort: input.metricsPort ?? null,
    metricsHost: input.metricsHost,
    tracesUrl: tracesUrlOf(input.tracesEndpoint, input.otlpEndpoint),
    otlpHeaders: input.otlpHeaders ?? {},
    serviceName: input.serviceName,
    exportDelayMs: input.exportDelayMs,
  });
}

/** The variables `readObservabilityConfig` reads, for `.env.example`. */
export const OBSERVABILITY_ENV_VARIABLES: readonly string[] = Object.values(ENV_NAMES);
