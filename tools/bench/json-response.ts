import { fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';

/**
 * `tsx tools/bench/json-response.ts`: what writing a completion-sized JSON body costs an Express server,
 * with `res.status(200).json(body)` against `writeHead` + `end` of the serialised text (what
 * `http/completion-sink.ts` does). The server runs in a child process and reports its own CPU
 * (`process.cpuUsage`) per request; the client alternates the two ways in rounds, so a busy moment of
 * this shared machine touches both.
 */
const ROUNDS = 4;
const REQUESTS = 20_000;
const CLIENTS = 16;
const say = (text: string) => process.stdout.write(`${text}\n`);

const BODY = {
  id: 'chatcmpl-00000000-0000-0000-0000-000000000000',
  object: 'chat.completion',
  model: 'gpt-4o-mini',
  created: 1_764_000_000,
  choices: [{ index: 0, message: { role: 'assistant', content: 'Echo: Say hello to the benchmark.' }, finish_reason: 'stop', logprobs: null }],
  usage: { prompt_tokens: 7, completion_tokens: 6, total_tokens: 13 },
  metadata: { app_id: '00000000-0000-0000-0000-000000000000', costs: { total_tokens_cost: 0.00001 }, labels: {}, error: '', warning: '' },
};

function serve(): void {
  const app = express();
  app.set('etag', false);
  app.post('/res-json', (_req, res) => {
    res.status(200).json(BODY);
  });
  app.post('/write-head', (_req, res) => {
    const text = JSON.stringify(BODY);
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
  let last = process.cpuUsage();
  app.get('/cpu', (_req, res) => {
    const used = process.cpuUsage(last);
    last = process.cpuUsage();
    res.end(String(used.user + used.system));
  });
  const server = app.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
}

async function measure(port: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const call = (method: string, path: string) =>
    new Promise<string>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path, method, agent }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (part: string) => (text += part));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end();
    });
  const load = async (path: string, count: number) => {
    let sent = 0;
    await Promise.all(Array.from({ length: CLIENTS }, async () => {
      while (sent++ < count) await call('POST', path);
    }));
  };
  const ways = ['/res-json', '/write-head'] as const;
  const perRequest: Record<(typeof ways)[number], number[]> = { '/res-json': [], '/write-head': [] };
  for (const way of ways) await load(way, REQUESTS / 4);
  for (let round = 0; round < ROUNDS; round++) {
    for (const way of ways) {
      await call('GET', '/cpu');
      await load(way, REQUESTS);
      perRequest[way].push(Number(await call('GET', '/cpu')) / REQUESTS);
    }
  }
  agent.destroy();
  const row = (way: (typeof ways)[number]) => `| ${way} | ${perRequest[way].map((us) => us.toFixed(1)).join(', ')} | ${(perRequest[way].reduce((a, b) => a + b, 0) / ROUNDS).toFixed(1)} |`;
  say(`Server CPU per request (µs), ${CLIENTS} keep-alive clients, ${ROUNDS} rounds of ${REQUESTS} requests each way:`);
  say('| way | rounds | mean |\n| --- | --- | --- |');
  say(row('/res-json'));
  say(row('/write-head'));
}

if (process.argv[2] === 'serve') serve();
else {
  const child = fork(__filename, ['serve'], { execArgv: process.execArgv });
  child.once('message', (message: { port: number }) => {
    measure(message.port)
      .finally(() => child.kill())
      .catch((err: unknown) => {
        say(String(err));
        process.exitCode = 1;
      });
  });
}
