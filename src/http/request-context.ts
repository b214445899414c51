import type { AuthContext } from '../auth/auth-context';

declare global {
  // Express's own extension point for per-request state.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by the authenticate middleware. */
      auth?: AuthContext;
    }
  }
}

export {};
