import type { z } from 'zod';
import type { HttpClient, HttpResponse } from '../../net/http-client';
import { UpstreamError } from '../../errors/upstream-error';

/**
 * Why direct HTTP and not `masto` or `@atproto/api`: both are ESM-only (`"type": "module"`), which
 * this CommonJS service cannot require, and both bring their own fetch, while every call here must
 * go through `ctx.untrusted` (the instance and PDS URLs come from a Space's settings, so they are
 * untrusted URLs that the SSRF-safe client checks). What we use is three small JSON calls (one for
 * Mastodon, session + createRecord/getRecord for Bluesky), checked with zod below.
 */
export interface NetworkCall {
  http: HttpClient;
  signal: AbortSignal;
  /** This call's time, in ms. */
  timeoutMs: number;
}

/** Joins a base URL (which may carry a path prefix) and an API path. */
export function endpoint(base: string, path: string): string {
  return new URL(path.replace(/^\//, ''), base.endsWith('/') ? base : `${base}/`).toString();
}

/** Parses a 2xx JSON body with `schema`; any other shape is the network's `invalid_response`. */
export function parseBody<T>(response: HttpResponse, schema: z.ZodType<T>, service: string): T {
  const parsed = schema.safeParse(response.json());
  if (!parsed.success) {
    throw new UpstreamError({ kind: 'invalid_response', provider: service, status: response.status, message: `${service} answered in an unexpected format` });
  }
  return parsed.data;
}
