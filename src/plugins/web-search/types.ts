import type { HttpRequest } from '../../net/http-client';

/** What one search asks of a backend. */
export interface WebSearchQuery {
  query: string;
  /** Results wanted (1..10); backends that cannot limit return more, and the plugin keeps the first. */
  count: number;
  /** Preferred language (e.g. `en`), for backends that take one; null: the backend's default. */
  language: string | null;
}

/** One result, whatever backend found it. */
export interface WebResult {
  title: string;
  url: string;
  /** Plain text (tags removed): the backend's snippet, highlights or extracted text. */
  snippet: string;
  /** The backend's relevance, higher is better (its own scale; the reciprocal rank where it gives none). */
  score: number;
  /** As the backend gives it: an ISO date, or a relative age such as "2 days ago". */
  publishedAt?: string;
}

/** Where the backend is and how to prove who we are. */
export interface BackendTarget {
  baseUrl: string;
  apiKey: string | null;
}

/** The wire part of a request; the plugin adds the signal, timeout and service name. */
export type BackendRequest = Pick<HttpRequest, 'method' | 'url' | 'headers' | 'body'>;

/** One backend's wire format, as two pure functions (unit-tested with raw JSON). */
export interface WebSearchAdapter {
  buildRequest(query: WebSearchQuery, target: BackendTarget): BackendRequest;
  /**
   * Throws UpstreamError `invalid_response` when the body is not the backend's format. With `max`, the
   * results may stop once `max` distinct URLs are read (the plugin keeps no more).
   */
  parseResponse(body: unknown, max?: number): WebResult[];
}
