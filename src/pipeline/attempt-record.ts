import type { Usage } from '../domain/chat';
import type { RoutableModel } from '../domain/routable-model';
import type { PluginId } from '../plugins/types';
import type { UpstreamError, UpstreamErrorKind } from '../errors/upstream-error';

/** One upstream model call: what it cost and how it ended. A child log, unless it is the request's only step (then its own log keeps it). */
export interface AttemptRecord {
  kind: 'model';
  model: RoutableModel;
  /** 0 for the first call to this model, 1 for its first retry, ... */
  retry: number;
  startedAt: number;
  latencyMs: number;
  statusCode: number;
  usage: Usage;
  error?: UpstreamError;
}

/** One plugin run: a child log. */
export interface PluginRecord {
  kind: 'plugin';
  plugin: PluginId;
  backend: string;
  startedAt: number;
  latencyMs: number;
  statusCode: number;
  /** USD. */
  costUsd: number;
  /** What it was asked (masked in the log at privacy level 2). */
  query: string;
  results: number;
  artifacts: number;
  cached: boolean;
  error?: { kind: string; status: number | null; message: string };
}

/** A step of a request: each is a child log of it, except a lone model call (see `logRowsFor`). */
export type StepRecord = AttemptRecord | PluginRecord;

export const NO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/** The status logged for a failed call: the upstream's own, or ours for failures without one. */
const STATUS_WITHOUT_RESPONSE: Record<UpstreamErrorKind, number> = {
  rate_limited: 429,
  server_error: 500,
  timeout: 504,
  connection: 502,
  stream_cut: 502,
  bad_request: 400,
  authentication: 401,
  permission: 403,
  not_found: 404,
  invalid_response: 502,
  aborted: 499,
};

export function statusOfError(error: UpstreamError): number {
  return error.status ?? STATUS_WITHOUT_RESPONSE[error.kind];
}
