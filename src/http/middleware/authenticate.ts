import type { RequestHandler } from 'express';
import type { Authenticator } from '../../auth/authenticator';
import '../request-context';

export function authenticate(authenticator: Authenticator): RequestHandler {
  return async (req, _res, next) => {
    req.auth = await authenticator.authenticate({ authorization: req.headers.authorization, clientAddress: req.ip });
    req.log = req.log.child({ org_id: req.auth.orgId, key_id: req.auth.keyId });
    next();
  };
}
