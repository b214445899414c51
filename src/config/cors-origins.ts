import { z } from 'zod';

/** Which browser origins may call the API: any (`*`), none, or these. */
export type CorsOrigins = '*' | 'none' | string[];

/** `scheme://host[:port]`, as browsers send it in `Origin`. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

/**
 * `CORS_ORIGINS`: `*` (the default, as OpenAI's API: any origin, no cookies, since a key authenticates
 * every call), `none` (no CORS headers: browsers on other origins are refused), or a comma-separated
 * list of origins such as `https://app.example.com,http://localhost:5173`.
 */
export const corsOriginsSchema = z
  .string()
  .trim()
  .transform((value, ctx): CorsOrigins => {
    if (value === '*' || value === 'none') return value;
    const origins = value.split(',').map((entry) => entry.trim().replace(/\/+$/, ''));
    const bad = origins.find((origin) => !isOrigin(origin));
    if (bad !== undefined) {
      ctx.addIssue({ code: 'custom', message: `'${bad}' is not *, none or an origin such as https://app.example.com` });
      return z.NEVER;
    }
    return origins;
  })
  .prefault('*');
