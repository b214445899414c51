import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { httpPost } from '../../src/providers/http/http-post';
import { closedLoop, compareInRounds, cpuPerCall, runToExit } from './compare-in-rounds';
import { startUpstream } from './processes';

/**
 * `tsx tools/bench/upstream-client.ts`: the caller's CPU per streamed completion (an OpenAI-format SSE body
 * of 9 events, read to its end) through the provider adapters' client (`src/providers/http/http-post.ts`,
 * undici's `request` with a keep-alive agent) and through `node:http` with a keep-alive agent, the client
 * before it. 64 calls in flight, the two ways alternating in rounds; the upstream
 * (`minimal-upstream.ts`) runs in its own process, so the figures are the client's alone.
 */
const ROUNDS = 4;
const CALLS = 10_000;
const IN_FLIGHT = 64;

const BODY = JSON.stringify({
  model: 'gpt-4o-mini',
  stream: true,
  stream_options: { include_usage: true },
  messages: [{ role: 'user', content: 'Say hello to the benchmark.' }],
});
const HEADERS = { 'content-type': 'application/json', authorization: 'Bearer bench' };
const nodeAgent = new HttpAgent({ keepAlive: true, keepAliveMsecs: 10_000, maxSockets: 1024 });

async function throughNodeHttp(url: string): Promise<number> {
  const message = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = httpRequest(new URL(url), {
      method: 'POST',
      agent: nodeAgent,
      headers: { ...HEADERS, 'content-length': Buffer.byteLength(BODY) },
      signal: new AbortController().signal,
    });
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

async function main(): Promise<void> {
  const upstream = await startUpstream('minimal');
  try {
    const url = `${upstream.url}/openai/v1/chat/completions`;
    const ways: Record<string, () => Promise<number>> = {
      'undici request (http-post.ts)': () => throughAdapterClient(url),
      'node:http, keep-alive agent': () => throughNodeHttp(url),
    };
    await compareInRounds(Object.keys(ways), {
      rounds: ROUNDS,
      heading: `Client CPU per streamed call, ${IN_FLIGHT} in flight, ${ROUNDS} rounds of ${CALLS}:`,
      warmUp: (way) => closedLoop(ways[way] as () => Promise<number>, { count: CALLS / 4, inFlight: IN_FLIGHT }),
      measure: (way) => cpuPerCall(ways[way] as () => Promise<number>, { count: CALLS, inFlight: IN_FLIGHT }),
    });
  } finally {
    nodeAgent.destroy();
    await upstream.stop();
  }
}

runToExit(main);
