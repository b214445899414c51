import { Readable } from 'node:stream';
import type { UpstreamHttpResponse } from '../../src/providers/http/http-post';

/** An in-memory upstream response whose body arrives in the given pieces (default: one). */
export function upstreamResponse(body: string, { status = 200, pieces = [body] }: { status?: number; pieces?: string[] } = {}): UpstreamHttpResponse {
  const encoder = new TextEncoder();
  return {
    status,
    ok: status >= 200 && status < 300,
    headers: { get: () => null },
    // One read per piece, as each arrived on its own.
    body: Readable.from(pieces.map((piece) => encoder.encode(piece))),
    finish: () => undefined,
    text: async () => body,
    json: async () => JSON.parse(body) as unknown,
  };
}
