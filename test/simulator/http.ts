import type { IncomingMessage, ServerResponse } from 'node:http';

export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as unknown) : {};
}

/** What the simulator answers with: a status, a JSON body and any extra headers. */
export interface JsonReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export function sendJson(res: ServerResponse, { status, body, headers = {} }: JsonReply): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function startSse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
