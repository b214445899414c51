import type { RequestHandler } from 'express';
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
  return async (req, _res, next) => {
    const authorization = authorizationOf(req.headers.authorization, req.headers['x-api-key']);
    req.auth = await authenticator.authenticate({ authorization, clientAddress: req.ip });
    // Made only if the request logs a line (most log none but the access line).
    req.log = lazyChild(req.log, { org_id: req.auth.orgId, key_id: req.auth.keyId });
    next();
  };
}
