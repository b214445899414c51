import type { RequestHandler } from 'express';

/**
 * Takes `user:password@` out of the page's base address. A browser opened at
 * `http://operator:<key>@host/admin/queues` signs in with those credentials and keeps them in the
 * address its `<base href>` resolves to (Chromium hides them from `location` but not from
 * `document.baseURI`). bull-board builds its calls (translations, queues) from that base, and the
 * Fetch standard refuses a request to an address holding credentials: every call threw, and the
 * dashboard showed its raw translation keys or stayed on "Loading". The page is loaded again at its
 * address without them (once: a marker in sessionStorage stops a loop); the browser still sends the
 * credentials it signed in with (same origin and path), and the calls succeed.
 */
const CLEAN_BASE =
  '<script>(function(){var b=new URL(document.baseURI);if(!b.username&&!b.password)return;' +
  'if(sessionStorage.getItem("sy-clean-base")===location.pathname)return;sessionStorage.setItem("sy-clean-base",location.pathname);' +
  'var u=new URL(location.href);u.username="";u.password="";location.replace(u.href)})()</script>';

/** Adds the clean-up right after the `<base>` tag (or at the top of `<head>`) of every HTML page the wrapped router sends. */
export function stripUrlCredentials(): RequestHandler {
  return (_req, res, next) => {
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      // res.render sends its page before a content type is set: a string with a <head> is the page.
      const type = res.get('content-type');
      const html = typeof body === 'string' && (type === undefined ? /<head[\s>]/i.test(body) : type.startsWith('text/html'));
      if (!html) return send(body);
      const page = body as string;
      const withClean = /<base\b[^>]*>/i.test(page)
        ? page.replace(/<base\b[^>]*>/i, (base) => `${base}${CLEAN_BASE}`)
        : page.replace(/<head([^>]*)>/i, (head) => `${head}${CLEAN_BASE}`);
      return send(withClean);
    };
    next();
  };
}
