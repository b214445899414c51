import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import express, { Router, type Response } from 'express';

/** Where the console is served; `npm run build:console` writes it to `dist/console` of the package. */
export const CONSOLE_PATH = '/console';

/**
 * Only our own files: no inline script or style, no third-party font or CDN, no framing. The page talks
 * to this origin's public API only. Chart.js sizes its canvas through the CSSOM, which `style-src` allows;
 * Pico's CSS draws its icons as `data:` SVGs.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Hashed asset names change with their content, so a browser may keep one for a year. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';

/** The package's root: the nearest folder above this file with a package.json (src/ under tsx, dist/src/ once compiled). */
function packageRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return from;
    dir = parent;
  }
  return dir;
}

export const DEFAULT_CONSOLE_DIR = join(packageRoot(__dirname), 'dist', 'console');

function secure(res: Response): void {
  res.set('Content-Security-Policy', CONSOLE_CSP);
  res.set('X-Content-Type-Options', 'nosniff');
  res.set('Referrer-Policy', 'no-referrer');
  res.set('X-Frame-Options', 'DENY');
}

/**
 * The web console's static files, public like any login page: every call it makes carries the key the
 * user typed. `index.html` is never cached (it names the current assets); assets are cached for a year.
 */
export function consoleRouter(dir: string = DEFAULT_CONSOLE_DIR): Router {
  const router = Router({ strict: true });
  const index = join(dir, 'index.html');
  router.use((_req, res, next) => {
    secure(res);
    next();
  });
  // The page names its assets relatively, so it must be addressed as a folder.
  router.get('/', (req, res, next) => {
    if (!req.originalUrl.split('?')[0]?.endsWith('/')) {
      res.redirect(301, `${CONSOLE_PATH}/`);
      return;
    }
    next();
  });
  router.use('/assets', express.static(join(dir, 'assets'), { index: false, setHeaders: (res) => res.setHeader('Cache-Control', ASSET_CACHE) }));
  router.get('/', (_req, res) => {
    if (!existsSync(index)) {
      res.status(503).type('text/plain').set('Cache-Control', 'no-store').send('The console is not built: run `npm run build:console`.');
      return;
    }
    res.set('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
  return router;
}
