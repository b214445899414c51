/**
 * The stages of one completion, for the per-stage CPU budget: each profile sample is charged to the
 * stage of the nearest project function on its stack (its file), or, when no project function is on
 * the stack (work resumed from a socket or a promise), to the stage its library serves.
 */
export const STAGES = ['edge', 'intake', 'queue', 'plan', 'model call', 'log', 'reply', 'runtime'] as const;
export type Stage = (typeof STAGES)[number];

export const STAGE_MEANINGS: Record<Stage, string> = {
  edge: 'HTTP in the API: Express, body parsing, validation, key check, metrics and request logging',
  intake: 'the Space and its stamp, rate limit, idempotency, building the job',
  queue: 'BullMQ and Redis in both processes: adding, taking, locking and finishing the job',
  plan: 'the worker before the model: the snapshot, the request as prepared, routing and its scores, plugins',
  'model call': 'the upstream call: request body, HTTP client, SSE parsing, retries and failover',
  log: 'the log rows, costs and savings, and their group-committed insert',
  reply: 'the answer: publishing it, the API receiving it, and writing the HTTP response',
  runtime: 'no project function on the stack and no library of a stage: GC, V8, the event loop, streams',
};

/** Project files by stage: the first pattern that matches a file's path (from the repository root) wins. */
const BY_FILE: [RegExp, Stage][] = [
  // The Space snapshot and what a request names live in store/, but serve the plan.
  [/\/store\/(space-context|completion-sources)\.[jt]s$/, 'plan'],
  [/(reply-publisher|reply-listener|replies|wire-sink|completion-sink|cancellations|client-gone)\.[jt]s$|\/formats\//, 'reply'],
  [/(log-rows|log-batcher|attempt-record|run-trace|completion-telemetry)\.[jt]s$|\/(accounting|store)\//, 'log'],
  [/(model-step|attempt-runner|fit-request|stream-assembler|tool-loop|until-aborted|upstream-failure)\.[jt]s$|\/(providers|net|resilience)\//, 'model call'],
  [
    /(prepare-request|model-plan|plugin-plan|plugin-steps|plugin-context|space-memo|run|step-services|answer-request|completion-runner|conversation-turns|citations|privacy|completion-result)\.[jt]s$|\/(routing|text|plugins)\//,
    'plan',
  ],
  [/(completion-gateway|job-instrumentation|job-trace)\.[jt]s$|\/queue\/|^workers\//, 'queue'],
  [/\/(completions|intake|cache)\//, 'intake'],
  [/\/(http|auth|observability|schemas|errors|logging)\//, 'edge'],
];

/** Libraries (profile areas) by stage, for samples with no project function above them. */
const BY_AREA: [RegExp, Stage][] = [
  [
    /^(express|router|body-parser|raw-body|pino-http|pino|zod|cors|content-type|finalhandler|on-finished|send|qs|iconv-lite|type-is|path-to-regexp|node:_http_server|node:_http_common|node:_http_incoming)$/,
    'edge',
  ],
  [/^(bullmq|ioredis|msgpackr|cron-parser|uuid|redis-parser|cluster-key-slot|denque|standard-as-callback)$/, 'queue'],
  [/^(undici|node:_http_client|node:_http_agent|eventsource-parser|gpt-tokenizer)$/, 'model call'],
  [/^(pg|pg-protocol|pg-pool|@prisma\/.*|postgres-array|postgres-date|postgres-interval|pg-types)$/, 'log'],
];

export function stageOfFile(file: string): Stage | null {
  return BY_FILE.find(([pattern]) => pattern.test(file))?.[1] ?? null;
}

/** The stage of a sample: its nearest project file's, else its library's, else the runtime. */
export function stageOf({ projectFile, area }: { projectFile: string | null; area: string }): Stage {
  const byFile = projectFile ? stageOfFile(projectFile) : null;
  if (byFile) return byFile;
  return BY_AREA.find(([pattern]) => pattern.test(area))?.[1] ?? 'runtime';
}
