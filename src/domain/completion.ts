import type { Costs } from './costs';
import type { ArtifactItem, PluginId, SearchResultItem } from './plugin-output';
import type { AssistantMessage, ChunkChoice, FinishReason, Usage } from './chat';

/**
 * What a completion produces, in provider- and API-neutral terms. The worker speaks these; each API's
 * edge (OpenAI chat completions today) turns them into its wire format.
 */

/** The model that answered, as `metadata.model` names it. */
export interface ModelIdentity {
  id: string;
  model: string;
  namespace: string;
  provider: string;
  owner: string;
  at: string;
}

/** A source marker in an answer mapped to the search result it cites (OpenAI's annotation shapes). */
export type Annotation =
  | { type: 'url_citation'; url_citation: { start_index: number; end_index: number; url: string; title: string } }
  | { type: 'file_citation'; file_citation: { start_index: number; end_index: number; file_id: string; filename: string; index: number } };

export interface ResultChoice {
  index: number;
  message: AssistantMessage & { annotations?: Annotation[] };
  finish_reason: FinishReason | null;
}

/** Why a plugin ran (or did not), for `metadata.extra.plugins`. */
export type PluginTrigger = 'requested' | 'assistant' | 'tool_call' | 'preselected';

export interface PluginReport {
  id: PluginId;
  trigger: PluginTrigger;
  /** Why it was chosen (pre-selection's reason, the model's tool call) or why it did not run. */
  reason: string;
  status: 'ok' | 'failed' | 'unavailable' | 'skipped';
  latency_ms: number;
  /** USD. */
  cost: number;
  /** Served from the result cache (privacy level 1 only). */
  cached?: boolean;
  error?: string;
}

/** Why auto_tools left a plugin it may use out of the request. */
export type AutoToolsSkipReason =
  /** The plugin has no backend configured in this deployment (its key or URL is not set). */
  | 'no_backend'
  /** social-post: the Space's settings do not set `allow_auto_tools`. */
  | 'not_allowed'
  /** space-search: the Space (or the parent whose data it reads) holds no searchable files. */
  | 'no_searchable_files'
  /** Pre-selection: the classifier scored it below its threshold (0.5). */
  | 'below_threshold'
  /** Pre-selection: the request explicitly declined it ("don't search the web"). */
  | 'declined';

/**
 * What auto_tools did, for `metadata.extra.auto_tools` (present only when auto_tools is on for the
 * request). `considered`: the Space's auto_tools plugins the request did not name; each is either
 * `picked` (pre-selected, or offered to the model as a tool in the tool loop) or `skipped` with why.
 */
export interface AutoToolsReport {
  /** How plugins were chosen; null when nothing was left to choose from. */
  mode: 'preselect' | 'tool_loop' | null;
  considered: PluginId[];
  /** `score`: the classifier's, 0..1; null in the tool loop (the model chooses). */
  picked: { id: PluginId; score: number | null }[];
  /** `detail`: a sentence for people; `score`: the classifier's when it judged the plugin, else null. */
  skipped: { id: PluginId; reason: AutoToolsSkipReason; detail: string; score: number | null }[];
}

/** How the router decided, as `metadata.scores` shows it. */
export interface RoutingScores {
  best_models: string[];
  candidates: { model: string; provider: string; score: number; quality: number; offline_quality: number; cost: number; latency: number }[];
  router: { version: string; kind: string; smart_learn: boolean; explored: boolean };
}

/**
 * A finished completion's answer: what every API's edge writes as its body (a stream's text went out
 * as deltas, so a streamed answer's `choices` are empty when it reaches the edge).
 */
export interface CompletionAnswer {
  requestId: string;
  /** Seconds since the epoch. */
  created: number;
  model: ModelIdentity;
  choices: ResultChoice[];
  /** Summed over every model call of the request (a tool loop makes several). */
  usage: Usage;
  statusCode: number;
}

/**
 * How an answer was reached, built from the run's trace: routing, plugins, costs and savings. The
 * edges show it as the response's `metadata` (formats/completion-metadata.ts), serialised once by the
 * worker that built it.
 */
export interface RunReport {
  appId: string;
  /** Model tokens, plus plugin costs in the total. USD. */
  costs: Costs;
  savings: Costs;
  /** Milliseconds the answering model took (the last model step). */
  latencyMs: number;
  retries: number;
  warnings: string[];
  error?: string;
  labels: Record<string, unknown>;
  scores: RoutingScores;
  score: number;
  temperature?: number;
  maxTokens?: number;
  searchResults: SearchResultItem[];
  artifacts: ArtifactItem[];
  plugins: PluginReport[];
  /** Set only when auto_tools was on for the request. */
  autoTools?: AutoToolsReport;
}

/** A finished completion: its answer and the report of how it was reached. */
export interface CompletionResult extends CompletionAnswer {
  report: RunReport;
}

/**
 * A finished answer as it reaches an API's edge: the answer, and the report as the response's metadata,
 * JSON text the worker made once (formats/completion-metadata.ts) and each edge writes as it is.
 */
export interface FinishedAnswer {
  answer: CompletionAnswer;
  /** The spec's `metadata` object, serialised. */
  metadata: string;
}

/** A request that failed: what its client is told. */
export interface CompletionFailure {
  status: number;
  type: string;
  code: string;
  message: string;
  param: string | null;
  headers?: Record<string, string>;
}

/** What a stream carries before its end. */
export type StreamEvent =
  /** Text and tool-call deltas of the answer (a choice's first delta names no role: the edge adds it). */
  | { type: 'delta'; model: string; choices: ChunkChoice[] }
  /** A step of the request began or ended: the client may show it and must be able to ignore it. */
  | { type: 'step'; step: StepEvent };

export interface StepEvent {
  kind: 'plugin' | 'model';
  name: string;
  status: 'started' | 'finished' | 'failed';
}

/** What a request's log stores as its response: the result, or the failure (with what was answered before it). */
export type StoredResponse = { result: CompletionResult } | { failure: CompletionFailure; partial?: CompletionResult };

/**
 * A log's stored response, version 2 (`schemas/stored-log.ts` reads it, and the earlier shapes). The
 * answer and the report of how it was reached; the request's id and `created` are the row's own
 * columns (`id`, `timestamp`), so they are not stored again.
 */
export interface StoredLog {
  v: 2;
  /** What was answered (a stream cut short: its part); absent when the request failed before any answer. */
  answer?: StoredAnswer;
  /** How the answer was reached; present with `answer`. */
  report?: StoredReport;
  /** What the client was told when the request failed. */
  failure?: CompletionFailure;
  /** The one model call of a log without child rows: what its child row held before (see docs/decisions.md). */
  call?: StoredCall;
}

export interface StoredAnswer {
  choices: ResultChoice[];
  usage: Usage;
  model: ModelIdentity;
  /** The answer's status (200; a stream cut short keeps the status of what it answered). */
  status: number;
}

/** The result's figures and routing report, besides the answer. */
export interface StoredReport {
  app_id: string;
  /** USD. */
  costs: Costs;
  /** USD. */
  savings: Costs;
  latency_ms: number;
  retries: number;
  /** Lists and labels are left out when empty; they read back empty. */
  warnings?: string[];
  error?: string;
  labels?: Record<string, unknown>;
  scores: RoutingScores;
  score: number;
  temperature?: number;
  max_tokens?: number;
  search_results?: SearchResultItem[];
  artifacts?: ArtifactItem[];
  plugins?: PluginReport[];
  auto_tools?: AutoToolsReport;
}

/** A stored report as read back: every list and the labels present. */
export type ReadReport = StoredReport & Required<Pick<StoredReport, 'warnings' | 'labels' | 'search_results' | 'artifacts' | 'plugins'>>;

/**
 * A request's only model call, kept in its own log row: its model is the row's (`model_id`,
 * `namespace`), the rest is here. A request with more steps has a child row per step instead.
 */
export interface StoredCall {
  provider: string;
  /** Ms since the epoch. */
  started_at: number;
  latency_ms: number;
  /** The upstream's status (or ours for a failure without one). */
  status: number;
  usage: Usage;
  /** USD; zero when the call used no tokens. */
  costs: Costs;
  error?: { kind: string; status: number | null; message: string };
}
