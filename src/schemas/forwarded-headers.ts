import { z } from 'zod';

/**
 * Header names a request may not forward, compared in lower case: they would change Switchyard's own
 * call (credentials, framing, the target host, the body's encoding) or are hop-by-hop (RFC 9110 §7.6.1).
 */
export const REFUSED_FORWARDED_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'x-api-key',
  'x-goog-api-key',
  'host',
  'content-length',
  'content-type',
  'content-encoding',
  'accept-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
  'expect',
]);

/** Most headers one request forwards. */
export const MAX_FORWARDED_HEADERS = 32;
/** Longest forwarded header value, in characters. */
export const MAX_FORWARDED_HEADER_VALUE = 4096;

/** RFC 9110 `token`: the characters a header name may hold. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII, spaces and tabs: what Node sends unchanged (no line breaks, NUL or characters past Latin-1). */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

function refusal(name: string): string | null {
  if (!HEADER_NAME.test(name)) return 'is not a valid HTTP header name';
  if (REFUSED_FORWARDED_HEADERS.has(name.toLowerCase())) return 'cannot be forwarded: Switchyard sets it for its own call to the provider';
  return null;
}

/**
 * `custom_headers.headers`: extra HTTP headers sent on every upstream call of the request (as
 * Portkey and LiteLLM forward them), e.g. `anthropic-beta` or an `OpenAI-Organization`.
 */
export const forwardedHeadersSchema = z
  .record(z.string(), z.string().max(MAX_FORWARDED_HEADER_VALUE).regex(HEADER_VALUE, 'must hold only visible ASCII characters, spaces and tabs'))
  .superRefine((headers, ctx) => {
    const names = Object.keys(headers);
    if (names.length > MAX_FORWARDED_HEADERS)
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_FORWARDED_HEADERS} headers can be forwarded`, input: headers });
    const lowered = new Set<string>();
    for (const name of names) {
      const reason = refusal(name) ?? (lowered.has(name.toLowerCase()) ? 'is given twice (header names ignore case)' : null);
      lowered.add(name.toLowerCase());
      if (reason) ctx.addIssue({ code: 'custom', message: `header ${reason}`, path: [name], input: headers[name] });
    }
  })
  .describe(
    "Extra HTTP headers sent to the provider on every upstream call of the request. Names that would change Switchyard's own call (credentials, host, framing, encodings, hop-by-hop headers) are refused. Values are masked in logs from privacy level 2.",
  );
