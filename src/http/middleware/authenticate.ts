import type { NextFunction, Request, RequestHandler } from 'express';
import type { AuthContext } from '../../auth/auth-context';
import type { Authenticator } from '../../auth/authenticator';
import { ApiError } from '../../errors/api-error';
import { lazyChild } from '../../logging/lazy-child';
import '../request-context';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * The key a request presents: `Authorization: Bearer <key>` (OpenAI's clients), or `x-api-key: <key>`
 * (Anthropic's), on every route, so one key works with either SDK (Anthropic's also lists `/v1/models`).
 * Both go through the same checks and failed-attempt throttle. Two headers naming different keys are
 * refused rather than one of them silently winning.
 */
function authorizationOf(authorization: string | undefined, apiKey: string | string[] | undefined): string | undefined {
  const key = Array.isArray(apiKey) ? apiKey[0] : apiKey;
  if (key === undefined || key === '') return authorization;
  const secret = key.trim();
  if (authorization !== undefined && BEARER.exec(authorization)?.[1] !== secret) {
    throw new ApiError('invalid_request', "The 'Authorization' and 'x-api-key' headers name different keys; send one of them.", 'x-api-key');
  }
  return `Bearer ${secret}`;
}

export function authenticate(authenticator: Authenticator): RequestHandler {
  const accept = (req: Request, auth: AuthContext, next: NextFunction) => {
    req.auth = auth;
    // Made only if the request logs a line (most log none but the access line).
    req.log = lazyChild(req.log, { org_id: auth.orgId, key_id: auth.keyId });
    next();
  };
  // Not async: a key the cache holds is let in at once, with no promise for Express to follow.
  return (req, _res, next) => {
    const authorization = authorizationOf(req.headers.authorization, req.headers['x-api-key']);
    const cached = authenticator.cached(authorization);
    if (cached) return accept(req, cached, next);
    return authenticator.authenticate({ authorization, clientAddress: req.ip }).then((auth) => accept(req, auth, next));
  };
}
