import type { AuthContext } from '../auth/auth-context';

/** Whose error shape a route answers in: OpenAI's (the default) or Anthropic's (the Messages API). */
export type ErrorDialect = 'anthropic';

declare global {
  // Express's own extension point for per-request state.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by the authenticate middleware. */
      auth?: AuthContext;
      /** The wire format errors are written in; set before authentication for routes of another API (Anthropic's). */
      errorDialect?: ErrorDialect;
    }
  }
}
