import type { Json } from '../domain/json';
import type { PrivacyLevel } from '../domain/privacy-policy';
import type { RequestedCompletion } from '../domain/requested-completion';

/** A request's wire body as the log keeps it, less its messages (which travel once, in the domain request). */
export type WireBody = { [field: string]: Json | undefined };

/** Copies a main Space's configuration, models and failover chain into its sandbox. */
export interface SandboxSyncJob {
  mainAppId: string;
  /** Who asked, for `modified_by` on the sandbox. */
  requestedBy: string;
}

/** Screens a prompt submitted for publication before a service owner reviews it. */
export interface PromptReviewJob {
  promptId: string;
  /** The `published_on` this job was enqueued for; a newer submission makes the job stale. */
  publishedOn: string;
}

/** A chat completion to run. Job id = request id = log id. It rests in Redis as JSON: what is empty is left out. */
export interface CompletionJob {
  requestId: string;
  orgId: string;
  appId: string;
  /** The Space's configuration version the API accepted the request at (SpaceVersions): the worker uses that configuration or a newer one. */
  spaceStamp: string;
  idpId: string;
  /** The request as the API decided it (intake/decide-completion.ts): the worker reads it, never the wire body. */
  request: RequestedCompletion;
  /**
   * The privacy level the request runs at, decided at intake: what it allows is `privacyPolicyOf(privacyLevel)`
   * (a table lookup, not a decision), which the worker, its log and Redis follow. The level, not the
   * policy's seven answers, keeps the job small.
   */
  privacyLevel: PrivacyLevel;
  /** The wire body less its messages, only for the log's payload. */
  payload: WireBody;
  /** Redis channel of the API process waiting for the answer; absent when nobody waits live (a batch line). */
  replyTo?: string;
  /** Epoch ms after which nobody waits for the answer. */
  deadline: number;
  /** Epoch ms the API accepted the request. */
  receivedAt: number;
  /**
   * Present for `Prefer: respond-async`: nobody waits on `replyTo`; the worker stores how the job ended
   * (AsyncJobStore) and queues the webhook, if there is one.
   */
  async?: AsyncCompletion;
  /** The API request's id (`X-Request-Id`), so the worker's log lines name the request as the API's do; absent for batch lines. */
  httpRequestId?: string;
  /** W3C trace context (`traceparent`, `tracestate`) of the API's span, when tracing is on: the job's span is its child. */
  traceContext?: Record<string, string>;
  /** The models the request's key may call (its `allowed_models`); absent for a key without a list. */
  allowedModels?: readonly string[];
}

export interface AsyncCompletion {
  /** The URL called when the job ends (the request's `webhook_url`, else the Space's), or null. */
  webhookUrl: string | null;
}

/** Delivers the webhook of an async job that ended; ids only, the job's stored record is what is sent. Job id = request id. */
export interface WebhookJob {
  requestId: string;
  appId: string;
}

/** Ingests an uploaded Space file: ids only, the bytes stay in PostgreSQL. Job id = file id. */
export interface SpaceFileJob {
  fileId: string;
  appId: string;
}

/** Coordinates one batch (validation, feeding its lines, expiry, cancellation, output files). Job id = batch id. */
export interface BatchJob {
  batchId: string;
}

/** Runs one line of a batch: ids only, the body waits in PostgreSQL. Job id = `<batch id>-<line>`. */
export interface BatchLineJob {
  batchId: string;
  line: number;
}
