import { session } from './session';

/** The API's error body (`{"error": {...}}`), thrown for every non-2xx answer. */
export class ApiFailure extends Error {
  readonly status: number;
  readonly code: string | null;
  readonly param: string | null;

  constructor(failure: { status: number; message: string; code: string | null; param: string | null }) {
    super(failure.message);
    this.status = failure.status;
    this.code = failure.code;
    this.param = failure.param;
  }
}

interface ErrorBody {
  error?: { message?: string; code?: string; param?: string | null };
}

type Query = Record<string, string | number | boolean | undefined | null>;

/** `?a=1&b=2` of the values that are set. */
export function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** Listeners told when the key is refused, so the app can return to the sign-in page. */
const unauthorized = new Set<() => void>();
export const onUnauthorized = (listener: () => void): (() => void) => {
  unauthorized.add(listener);
  return () => unauthorized.delete(listener);
};

/** Calls the public API with the session's key; same origin, so no CORS and no key in the URL. */
export async function api<T>(
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  path: string,
  options: { query?: Query; body?: unknown; key?: string } = {},
): Promise<T> {
  const key = options.key ?? session.key();
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (key) headers.Authorization = `Bearer ${key}`;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${path}${queryString(options.query ?? {})}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    credentials: 'omit',
    cache: 'no-store',
  });
  const body = (await res.json().catch(() => ({}))) as T & ErrorBody;
  if (!res.ok) {
    if (res.status === 401 && !options.key) unauthorized.forEach((listener) => listener());
    throw new ApiFailure({
      status: res.status,
      message: body.error?.message ?? `HTTP ${res.status}`,
      code: body.error?.code ?? null,
      param: body.error?.param ?? null,
    });
  }
  return body;
}

export interface ListPage<T> {
  object: 'list';
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}
