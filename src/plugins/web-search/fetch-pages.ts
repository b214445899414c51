import type { Logger } from 'pino';
import type { HttpClient } from '../../net/http-client';
import { UpstreamError } from '../../errors/upstream-error';
import { pageText, truncate } from './readable-text';

export interface PageLimits {
  /** Longest wait for one page, in ms. */
  timeoutMs: number;
  /** Largest page read, in bytes. */
  maxBytes: number;
  /** Characters of text kept per page. */
  maxChars: number;
}

export interface PageFetch {
  /** The SSRF-safe client: result URLs come from the web, never from the operator. */
  client: HttpClient;
  signal: AbortSignal;
  /** Epoch ms by which the plugin must answer; no page is waited for beyond it. */
  deadline: number;
  limits: PageLimits;
  logger: Logger;
}

const ACCEPT = 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8';

async function fetchOne(url: string, { client, signal, deadline, limits }: PageFetch): Promise<string> {
  const timeoutMs = Math.min(limits.timeoutMs, deadline - Date.now());
  if (timeoutMs <= 0) throw new Error('no time left for pages');
  if (!/^https?:\/\//i.test(url)) throw new Error('not an http(s) URL');
  const response = await client({ method: 'GET', url, headers: { accept: ACCEPT }, signal, timeoutMs, maxBytes: limits.maxBytes, service: 'page' });
  const type = (response.headers.get('content-type') ?? '').toLowerCase();
  let text: string;
  if (type.includes('html')) text = pageText(response.text(), limits.maxChars);
  else if (type.startsWith('text/plain')) text = truncate(response.text().replace(/\s+/g, ' ').trim(), limits.maxChars);
  else throw new Error(`unreadable content type ${type || '(none)'}`);
  if (!text) throw new Error('no readable text');
  return text;
}

/**
 * Fetches the given result pages at once and reduces each to readable text. A page that fails (an
 * error status, a refused address, too large, too slow, not text) is null: the caller keeps the
 * search snippet and says so in a warning.
 */
export async function fetchPages(urls: string[], fetch: PageFetch): Promise<(string | null)[]> {
  return Promise.all(
    urls.map(async (url) => {
      try {
        return await fetchOne(url, fetch);
      } catch (err) {
        // The URL and message stay out of the log: at privacy level 3 nothing of the results may be kept.
        const reason = err instanceof UpstreamError ? err.kind : 'unreadable';
        fetch.logger.debug({ reason }, 'web-search: a result page could not be read');
        return null;
      }
    }),
  );
}
