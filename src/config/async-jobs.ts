import { z } from 'zod';

type Env = Record<string, string | undefined>;

/** Environment variable behind each key of the async-jobs configuration, for error messages. */
const ENV_NAMES = {
  resultTtlSeconds: 'ASYNC_RESULT_TTL_SECONDS',
  webhookAttempts: 'WEBHOOK_ATTEMPTS',
  webhookBackoffMs: 'WEBHOOK_BACKOFF_MS',
  webhookTimeoutMs: 'WEBHOOK_TIMEOUT_MS',
} as const;

export const asyncJobsConfigSchema = z.strictObject({
  /** How long an async job's status and result stay readable after it was accepted and again after it ended, in seconds. */
  resultTtlSeconds: z.coerce
    .number()
    .int()
    .positive()
    .default(24 * 3600),
  /** Deliveries of one webhook at most (the first included) before it counts as failed. */
  webhookAttempts: z.coerce.number().int().min(1).max(20).default(5),
  /** Wait before the first retry of a webhook, in ms; doubled for each further one. */
  webhookBackoffMs: z.coerce.number().int().positive().default(10_000),
  /** Longest one webhook delivery may take (connection, request and answer), in ms. */
  webhookTimeoutMs: z.coerce.number().int().positive().default(10_000),
});
export type AsyncJobsConfig = z.infer<typeof asyncJobsConfigSchema>;

const nonEmpty = (value: string | undefined): string | undefined => (value === undefined || value.trim() === '' ? undefined : value.trim());

/** Reads `ASYNC_RESULT_TTL_SECONDS` and the `WEBHOOK_*` variables; throws naming the variable. */
export function readAsyncJobsConfig(env: Env): AsyncJobsConfig {
  const parsed = asyncJobsConfigSchema.safeParse({
    resultTtlSeconds: nonEmpty(env.ASYNC_RESULT_TTL_SECONDS),
    webhookAttempts: nonEmpty(env.WEBHOOK_ATTEMPTS),
    webhookBackoffMs: nonEmpty(env.WEBHOOK_BACKOFF_MS),
    webhookTimeoutMs: nonEmpty(env.WEBHOOK_TIMEOUT_MS),
  });
  if (parsed.success) return Object.freeze(parsed.data);
  const describe = (issue: z.core.$ZodIssue) => `${ENV_NAMES[String(issue.path[0]) as keyof typeof ENV_NAMES] ?? String(issue.path[0])}: ${issue.message}`;
  throw new Error(`Invalid configuration:\n${parsed.error.issues.map((issue) => `  - ${describe(issue)}`).join('\n')}`);
}

/** The variables `readAsyncJobsConfig` reads, for `.env.example`. */
export const ASYNC_JOBS_ENV_VARIABLES: readonly string[] = Object.values(ENV_NAMES);
