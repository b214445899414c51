import type { AuthContext } from '../auth/auth-context';
import type { ErrorDialect } from './error-dialect';

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

export {};
