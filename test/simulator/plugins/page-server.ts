import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One page the server hands out. */
export interface SimPage {
  status?: number;
  contentType?: string;
  body: string;
}

export interface PageServer {
  url: string;
  /** Paths asked for, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** An article inside page furniture, as real pages are: only the article should reach the model. */
export function articlePage(title: string, paragraphs: string[]): string {
  return [
    '<!DOCTYPE html><html><head><title>',
    title,
    '</title><style>body { color: red }</style><script>var tracking = "never shown";</script></head><body>',
    '<header><a href="/">Site name</a></header><nav><ul><li><a href="/a">Menu item</a></li></ul></nav>',
    '<article><h1>',
    title,
    '</h1>',
    ...paragraphs.map((p) => `<p>${p}</p>`),
    '</article>',
    '<aside>Related links</aside><footer>Copyright footer</footer></body></html>',
  ].join('');
}

/** A tiny server of fixed pages on loopback, for the result pages web-search fetches; unknown paths are 404. */
export async function startPageServer(pages: Record<string, SimPage>): Promise<PageServer> {
  const requests: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://sim').pathname;
    requests.push(path);
    const page = pages[path];
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
      return;
    }
    res.writeHead(page.status ?? 200, { 'content-type': page.contentType ?? 'text/html; charset=utf-8' }).end(page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
