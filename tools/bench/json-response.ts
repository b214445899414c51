import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { runChildEntry } from './child-entry';
import { closedLoop, compareInRounds, runToExit } from './compare-in-rounds';
import { startBenchEntry } from './processes';

/**
 * `tsx tools/bench/json-response.ts`: what writing a completion-sized JSON body costs an Express server,
 * with `res.status(200).json(body)` against `writeHead` + `end` of the serialised text (what
 * `http/completion-sink.ts` does). The server runs in its own process (this file with `serve`) and
 * reports its own CPU (`process.cpuUsage`) per request; the two ways alternate in rounds.
 */
const ROUNDS = 4;
const REQUESTS = 20_000;
const CLIENTS = 16;

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
  runChildEntry('json-response server', async () => {
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
    const server = await new Promise<http.Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    return { ready: { port: (server.address() as AddressInfo).port }, close: () => new Promise((resolve) => server.close(resolve)) };
  });
}

async function main(): Promise<void> {
  const server = await startBenchEntry<{ port: number }>('json-response.ts', ['serve']);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const call = (method: string, path: string) =>
    new Promise<string>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: server.ready.port, path, method, agent }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (part: string) => (text += part));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end();
    });
  try {
    await compareInRounds(['/res-json', '/write-head'], {
      rounds: ROUNDS,
      heading: `Server CPU per request, ${CLIENTS} keep-alive clients, ${ROUNDS} rounds of ${REQUESTS} requests each way:`,
      warmUp: (way) => closedLoop(() => call('POST', way), { count: REQUESTS / 4, inFlight: CLIENTS }),
      measure: async (way) => {
        await call('GET', '/cpu');
        await closedLoop(() => call('POST', way), { count: REQUESTS, inFlight: CLIENTS });
        return Number(await call('GET', '/cpu')) / REQUESTS;
      },
    });
  } finally {
    agent.destroy();
    await server.stop();
  }
}

if (process.argv[2] === 'serve') serve();
else runToExit(main);
