import { fork } from 'node:child_process';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { httpPost } from '../../src/providers/http/http-post';
import { startMinimalUpstream } from './minimal-upstream';

/**
 * `tsx tools/bench/upstream-client.ts`: the caller's CPU per streamed completion (an OpenAI-format SSE body
 * of 9 events, read to its end) through the provider adapters' client (`src/providers/http/http-post.ts`,
 * undici's `request` with a keep-alive agent) and through `node:http` with a keep-alive agent, the client
 * before it. 64 calls in flight, the two ways alternating in rounds; the upstream
 * (`minimal-upstream.ts`) runs in a child process, so the figures are the client's alone.
 */
const ROUNDS = 4;
const CALLS = 10_000;
const IN_FLIGHT = 64;
const say = (text: string) => process.stdout.write(`${text}\n`);

const BODY = JSON.stringify({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Say hello to the benchmark.' }] });
const HEADERS = { 'content-type': 'application/json', authorization: 'Bearer bench' };
const nodeAgent = new HttpAgent({ keepAlive: true, keepAliveMsecs: 10_000, maxSockets: 1024 });

async function throughNodeHttp(url: string): Promise<number> {
  const message = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = httpRequest(new URL(url), { method: 'POST', agent: nodeAgent, headers: { ...HEADERS, 'content-length': Buffer.byteLength(BODY) }, signal: new AbortController().signal });
    req.on('response', resolve);
    req.on('error', reject);
    req.end(BODY);
  });
  let bytes = 0;
  for await (const part of message.iterator({ destroyOnReturn: false })) bytes += (part as Buffer).length;
  return bytes;
}

async function throughAdapterClient(url: string): Promise<number> {
  const response = await httpPost({ url, headers: HEADERS, body: BODY, signal: new AbortController().signal });
  let bytes = 0;
  for await (const part of response.body) bytes += part.byteLength;
  return bytes;
}

async function load(call: () => Promise<number>, count: number): Promise<void> {
  let sent = 0;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (sent++ < count) await call();
  }));
}

async function measure(upstreamUrl: string): Promise<void> {
  const url = `${upstreamUrl}/openai/v1/chat/completions`;
  const ways = { 'undici request (http-post.ts)': () => throughAdapterClient(url), 'node:http, keep-alive agent': () => throughNodeHttp(url) };
  const perCall = new Map<string, number[]>(Object.keys(ways).map((name) => [name, []]));
  for (const call of Object.values(ways)) await load(call, CALLS / 4);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, call] of Object.entries(ways)) {
      const before = process.cpuUsage();
      await load(call, CALLS);
      const used = process.cpuUsage(before);
      perCall.get(name)?.push((used.user + used.system) / CALLS);
    }
  }
  nodeAgent.destroy();
  say(`Client CPU per streamed call (µs), ${IN_FLIGHT} in flight, ${ROUNDS} rounds of ${CALLS}:`);
  say('| client | rounds | mean |\n| --- | --- | --- |');
  for (const [name, values] of perCall) say(`| ${name} | ${values.map((us) => us.toFixed(0)).join(', ')} | ${(values.reduce((a, b) => a + b, 0) / values.length).toFixed(0)} |`);
}

if (process.argv[2] === 'serve') {
  startMinimalUpstream().then(({ url }) => process.send?.({ url }), (err: unknown) => {
    say(String(err));
    process.exit(1);
  });
} else {
  const child = fork(__filename, ['serve'], { execArgv: process.execArgv });
  child.once('message', (message: { url: string }) => {
    measure(message.url)
      .finally(() => child.kill())
      .then(() => process.exit(0), (err: unknown) => {
        say(String(err));
        process.exit(1);
      });
  });
}
