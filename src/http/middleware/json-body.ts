import express, { type Request, type RequestHandler } from 'express';
import { ApiError } from '../../errors/api-error';
import { markLoopOwner } from '../../observability/loop-owner';
import { noteBodyText } from '../../schemas/input-guard';

/** Each request's JSON body size in bytes, as received (before parsing). */
const bodySizes = new WeakMap<object, number>();

/** The size of a request's JSON body in bytes, as received; undefined without one. */
export function bodyBytesOf(req: object): number | undefined {
  return bodySizes.get(req);
}

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * `Content-Type` values that `req.is('application/json')` accepts and `req.is('multipart/form-data')`
 * refuses, as the SDKs send them: such a request needs neither check (each parses the header again).
 */
const PLAIN_JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8']);

function hasBody(headers: { 'content-length'?: string; 'transfer-encoding'?: string }): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** Which requests the body check lets through unparsed. */
export interface BodyRoutes {
  /** Uploads: their route reads `multipart/form-data` with its own limit. */
  takesMultipart(req: Request): boolean;
  /** Whether a route answers the request at all: one that none does gets its 404, not a 415 for its body. */
  exists(req: Request): boolean;
}

const EVERY_ROUTE: BodyRoutes = { takesMultipart: () => false, exists: () => true };

/**
 * A body, when there is one, must be JSON (415 otherwise) and at most `limitBytes` (413). Uploads
 * (`takesMultipart`) may send `multipart/form-data` instead, which their route reads with its own limit.
 * One handler (the check, then express.json()), so a request passes one layer of the router for both.
 */
export function jsonBody(limitBytes: number, routes: BodyRoutes = EVERY_ROUTE): RequestHandler[] {
  // body-parser's verify hook: the raw text, before it is parsed, for the input guard.
  // eslint-disable-next-line max-params
  const verify = (req: object, _res: unknown, raw: Buffer, encoding: string | null) => {
    // The parse, validation and intake that follow run on the loop now, as this request's work.
    const { id } = req as { id?: unknown };
    if (typeof id === 'string') markLoopOwner(id);
    bodySizes.set(req, raw.length);
    noteBodyText(req, raw, encoding);
  };
  const parseJson = express.json({ limit: limitBytes, type: 'application/json', strict: true, verify });
  const requireJson: RequestHandler = (req, res, next) => {
    const type = req.headers['content-type'];
    if (type === undefined || !PLAIN_JSON_TYPES.has(type)) {
      const upload = req.is('multipart/form-data') && routes.takesMultipart(req);
      if (!upload && METHODS_WITH_BODY.has(req.method) && hasBody(req.headers) && !req.is('application/json')) {
        // A request no route answers goes on unread, to its 404 (which may say what serves its need).
        if (!routes.exists(req)) return next();
        throw new ApiError('unsupported_media_type', "Send the body as 'Content-Type: application/json'.", 'Content-Type');
      }
    }
    parseJson(req, res, next);
  };
  return [requireJson];
}
