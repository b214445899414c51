import type { RequestHandler } from 'express';

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/**
 * Express decodes path parameters with decodeURIComponent and fails the whole request when a segment
 * holds a bad escape (`%ff`, `%C0%AF`). Such a segment is re-escaped instead, so the route receives its
 * text as typed: a malformed id, answered exactly like an unknown one.
 */
export const keepUndecodablePathLiteral: RequestHandler = (req, _res, next) => {
  // Without a `%` nothing can fail to decode: most requests stop here, with nothing split or decoded.
  if (!req.url.includes('%')) {
    next();
    return;
  }
  const queryStart = req.url.indexOf('?');
  const pathname = queryStart < 0 ? req.url : req.url.slice(0, queryStart);
  const segments = pathname.split('/');
  if (!segments.every(decodes)) {
    const literal = segments.map((segment) => (decodes(segment) ? segment : segment.replaceAll('%', '%25'))).join('/');
    req.url = literal + (queryStart < 0 ? '' : req.url.slice(queryStart));
  }
  next();
};
