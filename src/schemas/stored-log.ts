import { z } from 'zod';
import type { AutoToolsReport, CompletionFailure, PluginReport, ReadReport, ResultChoice, RoutingScores, StoredAnswer, StoredCall } from '../domain/completion';
import type { ArtifactItem, SearchResultItem } from '../domain/plugin-output';

/**
 * The one reader of a completion log's stored `response`. Three shapes are in databases:
 * - 2: `StoredLog` (`{ v: 2, answer, report, failure?, call? }`), written since issue 34;
 * - 1: the domain result or failure, `{ result }` or `{ failure, partial? }`;
 * - 0: the chat completion itself, routing scores in `metadata`, from before results were kept in the domain shape.
 * Each is read into one view; a part that does not check is null, never a guess.
 */
export type StoredLogVersion = 0 | 1 | 2;

export interface StoredLogView {
  version: StoredLogVersion;
  /** What was answered (a stream cut short: its part); null for a failure before any answer. */
  answer: StoredAnswer | null;
  report: ReadReport | null;
  failure: CompletionFailure | null;
  /** The one model call of a log written without child rows (version 2 only). */
  call: StoredCall | null;
}

/**
 * A domain value checked on its outer structure and the fields readers rely on, typed as what the
 * worker wrote (its inner fields pass as they are: `looseObject` keeps them).
 */
const shaped = <T>(schema: z.ZodType): z.ZodType<T> => schema as unknown as z.ZodType<T>;

/**
 * An optional field. A log masked at privacy level 2 went through `maskContent`, which turns a field
 * holding undefined into null: both read as absent.
 */
const optional = <T extends z.ZodType>(schema: T) => schema.nullish().transform((value) => value ?? undefined);
/** A list (or the labels) the writer leaves out when empty: absent, or null once masked, reads as empty. */
const orEmpty = <T>(schema: z.ZodType<T>, empty: T) => schema.nullish().transform((value) => value ?? empty);

const tokens = z.object({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() });
const ZERO = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

const choice = z.looseObject({
  index: z.number().int(),
  message: z.looseObject({ role: z.literal('assistant'), content: z.string().nullable(), tool_calls: optional(z.array(z.looseObject({}))) }),
  finish_reason: z.string().nullable(),
});

/** An answer's usage; `reasoning_tokens` only where the model reported some. */
const usage = tokens.extend({ reasoning_tokens: optional(z.number()) });

const answerSchema = z.object({
  choices: shaped<ResultChoice[]>(z.array(choice)),
  usage,
  model: z.object({ id: z.string(), model: z.string(), namespace: z.string(), provider: z.string(), owner: z.string(), at: z.string() }),
  status: z.number().int(),
});

const scores = z.looseObject({
  best_models: z.array(z.string()).default([]),
  candidates: z.array(z.looseObject({ model: z.string(), provider: z.string() })),
  router: z.looseObject({ kind: z.string() }),
});

/** Defaults only for what rows written before a field existed may lack. */
const reportSchema = z.object({
  app_id: z.string().default(''),
  costs: tokens.default(ZERO),
  savings: tokens.default(ZERO),
  latency_ms: z.number().default(0),
  retries: z.number().int().default(0),
  warnings: orEmpty(z.array(z.string()), []),
  error: optional(z.string()),
  labels: orEmpty(z.record(z.string(), z.unknown()), {}),
  scores: shaped<RoutingScores>(scores),
  score: z.number().default(0),
  temperature: optional(z.number()),
  max_tokens: optional(z.number()),
  search_results: orEmpty(shaped<SearchResultItem[]>(z.array(z.looseObject({ index: z.number() }))), []),
  artifacts: orEmpty(shaped<ArtifactItem[]>(z.array(z.looseObject({ type: z.string() }))), []),
  plugins: orEmpty(shaped<PluginReport[]>(z.array(z.looseObject({ id: z.string(), status: z.string() }))), []),
  auto_tools: optional(shaped<AutoToolsReport>(z.looseObject({ considered: z.array(z.string()) }))),
});

const failureSchema = z.looseObject({
  status: z.number().int(),
  type: z.string(),
  code: z.string(),
  message: z.string(),
  param: z.string().nullable(),
  headers: optional(z.record(z.string(), z.string())),
});

const callSchema = z.object({
  provider: z.string(),
  started_at: z.number(),
  latency_ms: z.number(),
  status: z.number().int(),
  usage: tokens,
  costs: tokens,
  error: optional(z.object({ kind: z.string(), status: z.number().nullable(), message: z.string() })),
});

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const objectOr = (value: unknown): Json => (isObject(value) ? value : {});

interface Parts {
  answer?: unknown;
  report?: unknown;
  failure?: unknown;
  call?: unknown;
}

/** A version 1 result (`CompletionResult`) as version 2's parts. */
function fromResult(result: Json): Parts {
  return {
    answer: { choices: result.choices, usage: result.usage, model: result.model, status: result.statusCode },
    report: {
      app_id: result.appId,
      costs: result.costs,
      savings: result.savings,
      latency_ms: result.latencyMs,
      retries: result.retries,
      warnings: result.warnings,
      error: result.error,
      labels: result.labels,
      scores: result.scores,
      score: result.score,
      temperature: result.temperature,
      max_tokens: result.maxTokens,
      search_results: result.searchResults,
      artifacts: result.artifacts,
      plugins: result.plugins,
      auto_tools: result.autoTools,
    },
  };
}

/** A version 0 chat completion (its `metadata` as `formats/openai-chat.ts` wrote it) as version 2's parts. */
function fromChatCompletion(body: Json): Parts {
  const metadata = objectOr(body.metadata);
  const model = objectOr(metadata.model);
  const extra = objectOr(metadata.extra);
  const warning = typeof metadata.warning === 'string' && metadata.warning !== '' ? [metadata.warning] : [];
  return {
    answer: {
      choices: body.choices,
      usage: body.usage ?? ZERO,
      model: {
        id: '',
        model: body.model ?? '',
        namespace: model.namespace ?? '',
        provider: model.provider ?? '',
        owner: model.owner ?? '',
        at: model.at ?? '',
      },
      status: metadata.status_code ?? 200,
    },
    report: {
      app_id: metadata.app_id,
      costs: metadata.costs,
      savings: metadata.cost_savings,
      latency_ms: metadata.latency,
      retries: metadata.retries,
      warnings: warning,
      labels: metadata.labels,
      scores: metadata.scores,
      score: metadata.score,
      temperature: metadata.temperature ?? undefined,
      max_tokens: metadata.max_tokens ?? undefined,
      search_results: objectOr(metadata.search_results).items,
      artifacts: objectOr(metadata.generated_artifacts).items,
      plugins: extra.plugins,
      auto_tools: extra.auto_tools,
    },
  };
}

function part<T>(schema: z.ZodType<T>, value: unknown): T | null {
  if (value === undefined || value === null) return null;
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

function viewOf(version: StoredLogVersion, parts: Parts): StoredLogView {
  return {
    version,
    answer: part(answerSchema, parts.answer),
    report: part(reportSchema as unknown as z.ZodType<ReadReport>, parts.report),
    failure: part(failureSchema as z.ZodType<CompletionFailure>, parts.failure),
    call: part(callSchema as z.ZodType<StoredCall>, parts.call),
  };
}

/** A completion log's stored response, whichever version wrote it; null for a shape none of them has (an embeddings log, `{}`). */
export function readStoredLog(stored: unknown): StoredLogView | null {
  if (!isObject(stored)) return null;
  if (stored.v === 2) return viewOf(2, stored);
  if ('result' in stored) return isObject(stored.result) ? viewOf(1, fromResult(stored.result)) : null;
  if ('failure' in stored) return viewOf(1, { failure: stored.failure, ...(isObject(stored.partial) ? fromResult(stored.partial) : {}) });
  if (Array.isArray(stored.choices) || isObject(stored.metadata)) return viewOf(0, fromChatCompletion(stored));
  return null;
}
