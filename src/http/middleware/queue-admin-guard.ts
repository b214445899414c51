import type { RequestHandler } from 'express';
import { can } from '../../auth/auth-context';
import type { Authenticator } from '../../auth/authenticator';
import { ApiError } from '../../errors/api-error';

/**
 * bull-board is opened in a browser, which cannot send a bearer header: a service-owner key is also
 * accepted as the password of HTTP Basic auth (any user name), so the browser asks for it once.
 */
function bearerFrom(header: string | undefined): string | undefined {
  if (!header?.toLowerCase().startsWith('basic ')) return header;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const password = decoded.slice(decoded.indexOf(':') + 1);
  return `Bearer ${password}`;
}

/** Says which command makes a key the dashboard accepts (docs/keys.md, "The service owner's key"). */
export const QUEUE_DASHBOARD_REFUSAL =
  "The queue dashboard is for service owners; this key's user is not one. The operator gets a service owner's key with " +
  '`npm run -s cli -- keys create --org-id <organization id> --service-owner` (organization ids: `npm run -s cli -- orgs list`); the secret is printed once.';

export function queueAdminGuard(authenticator: Authenticator): RequestHandler {
  return async (req, res, next) => {
    try {
      const auth = await authenticator.authenticate({ authorization: bearerFrom(req.headers.authorization), clientAddress: req.ip });
      if (!can(auth, 'queues:admin')) throw new ApiError('permission_denied', QUEUE_DASHBOARD_REFUSAL);
      next();
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) res.set('WWW-Authenticate', 'Basic realm="switchyard queues"');
      throw err;
    }
  };
}
