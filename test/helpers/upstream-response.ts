import type { UpstreamHttpResponse } from '../../src/providers/http/http-post';

/** An in-memory upstream response whose body arrives in the given pieces (default: one). */
export function upstreamResponse(body: string, { status = 200, pieces = [body] }: { status?: number; pieces?: string[] } = {}): UpstreamHttpResponse {
  const encoder = new TextEncoder();
  return {
    status,
    ok: status >= 200 && status < 300,
    headers: { get: () => null },
    body: (async function* () {
      for (const piece of pieces) yield encoder.encode(piece);
    })(),
    finish: () => undefined,
    text: async () => body,
    json: async () => JSON.parse(body) as unknown,
  };
}
