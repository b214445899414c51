import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenAiCompatibleProvider } from '../../src/providers/openai-compatible/provider';
import { OPENAI_COMPATIBLE_VENDORS } from '../../src/providers/openai-compatible/vendors';
import { watchLoopStalls } from '../helpers/loop-stalls';
import { collect, simulatorContext } from './call-helpers';

const vendor = OPENAI_COMPATIBLE_VENDORS.find((v) => v.id === 'openai');
if (!vendor) throw new Error('no openai vendor');
const openai = new OpenAiCompatibleProvider(vendor);
const chunk = (content: string) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const last = `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: 'gpt-4o-mini', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } })}\n\n`;

/** A streaming upstream that sends [DONE], then (after `tailMs`) ends the body; counts the connections it is given and those closed. */
async function upstream(tailMs: number): Promise<{ server: Server; url: string; connections: () => number; closed: () => number }> {
  let connections = 0;
  let closed = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk('Hel') + chunk('lo') + last + 'data: [DONE]\n\n');
      setTimeout(() => res.end(), tailMs).unref();
    });
  });
  server.on('connection', (socket) => {
    connections += 1;
    socket.on('close', () => (closed += 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, connections: () => connections, closed: () => closed };
}

const ask = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Hi' }] };

describe('upstream connections are kept alive across streamed calls', () => {
  let up: Awaited<ReturnType<typeof upstream>>;
  afterEach(async () => {
    up.server.closeAllConnections();
    await new Promise((resolve) => up.server.close(resolve));
  });

  it('reuses one connection when the body ends just after [DONE]', async () => {
    up = await upstream(5);
    for (let call = 0; call < 3; call += 1) {
      const chunks = await collect(openai.chatStream(ask, simulatorContext(up.url)));
      expect(chunks.flatMap((c) => c.choices.map((choice) => choice.delta.content ?? '')).join('')).toBe('Hello');
      // The rest of the body is read in the background: give it its few ms, with room for a loaded machine (30 ms failed once beside the whole suite).
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(up.connections()).toBe(1);
  });

  it('answers at [DONE] and closes a connection whose body does not end within a second', async () => {
    up = await upstream(60_000);
    const clock = watchLoopStalls();
    const chunks = await collect(openai.chatStream(ask, simulatorContext(up.url)));
    // On the process's own time, however loaded the machine: well before the body's 60 s end.
    expect(clock.ownMs()).toBeLessThan(900);
    clock.stop();
    expect(chunks.length).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 1300));
    // The stuck connection is closed, not kept for the next call (undici may open and drop a spare one as it closes).
    expect(up.closed()).toBeGreaterThanOrEqual(1);
    const connections = up.connections();
    const next = await collect(openai.chatStream(ask, simulatorContext(up.url)));
    expect(next.length).toBeGreaterThan(0);
    expect(up.connections()).toBe(connections + 1);
  });
});
