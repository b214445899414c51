import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { SERVED_MESSAGES } from '../../src/http/served-messages';

/**
 * The API's server makes its requests and responses with their properties declared (served-messages.ts):
 * an Express app must see them exactly as on node's own objects.
 */

function app(): express.Express {
  const served = express();
  served.use(express.json());
  served.post('/echo/:id', (req, res) => {
    res.locals.seen = true;
    res.json({
      body: req.body as unknown,
      query: req.query,
      params: req.params,
      path: req.path,
      baseUrl: req.baseUrl,
      originalUrl: req.originalUrl,
      route: (req.route as { path: string }).path,
      auth: req.auth ?? null,
      hasLocals: res.locals.seen === true,
    });
  });
  served.get('/empty', (req, res) => {
    res.status(201).json({ body: req.body === undefined, bodyIn: 'body' in req, query: req.query });
  });
  return served;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function answers(origin: string): Promise<unknown[]> {
  const posted = await fetch(`${origin}/echo/a1?x=1&y=2`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":[1,{"b":2}]}' });
  const empty = await fetch(`${origin}/empty`);
  const missing = await fetch(`${origin}/nowhere`);
  return [
    posted.status,
    await posted.json(),
    empty.status,
    empty.statusText,
    await empty.json(),
    missing.status,
    missing.statusText,
    (await missing.text()).includes('Cannot GET /nowhere'),
  ];
}

describe('SERVED_MESSAGES', () => {
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

  it('answers as a server with node’s own request and response objects', async () => {
    const plain = createServer(app());
    const served = createServer(SERVED_MESSAGES, app());
    servers.push(plain, served);
    const [plainAnswers, servedAnswers] = await Promise.all([listen(plain).then(answers), listen(served).then(answers)]);
    expect(servedAnswers).toEqual(plainAnswers);
    expect(servedAnswers[1]).toEqual({
      body: { a: [1, { b: 2 }] },
      query: { x: '1', y: '2' },
      params: { id: 'a1' },
      path: '/echo/a1',
      baseUrl: '',
      originalUrl: '/echo/a1?x=1&y=2',
      route: '/echo/:id',
      auth: null,
      hasLocals: true,
    });
    expect(servedAnswers.slice(2, 4)).toEqual([201, 'Created']);
  });
});
