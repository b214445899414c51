import pino from 'pino';
import { StreamAssembler } from '../../src/pipeline/stream-assembler';
import { httpPost } from '../../src/providers/http/http-post';
import { OpenAiCompatibleProvider } from '../../src/providers/openai-compatible/provider';
import { OPENAI_COMPATIBLE_VENDORS } from '../../src/providers/openai-compatible/vendors';
import type { ProviderContext } from '../../src/providers/types';
import { closedLoop, compareInRounds, cpuPerCall, runToExit } from './compare-in-rounds';
import { startUpstream } from './processes';

/**
 * `tsx tools/bench/stream-vs-whole.ts [simulator|minimal]`: the worker's CPU per upstream call for a
 * non-streaming request, three ways: through the OpenAI adapter asked for a stream and assembled (what
 * `pipeline/model-step.ts` does, so that a hung upstream is told by its first-byte timeout), through the
 * adapter asked for a whole answer (`chat`), and the same stream's bytes read with no parsing at all (the
 * least a streamed call costs with this HTTP client). 64 calls in flight, the ways alternating in rounds;
 * the upstream (the provider simulator by default, which sends each SSE event in its own write, as
 * providers do) runs in its own process.
 */
const ROUNDS = 4;
const CALLS = 6_000;
const IN_FLIGHT = 64;

const vendor = OPENAI_COMPATIBLE_VENDORS.find((v) => v.id === 'openai');
if (!vendor) throw new Error('no openai vendor');
const provider = new OpenAiCompatibleProvider(vendor);
const request = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Say hello to the benchmark.' }] };

async function main(): Promise<void> {
  const upstream = await startUpstream(process.argv[2] === 'minimal' ? 'minimal' : 'simulator');
  const baseUrl = `${upstream.url}/openai/v1`;
  const logger = pino({ level: 'silent' });
  const ctx = (): ProviderContext => ({ apiKey: 'bench', baseUrl, signal: new AbortController().signal, timeoutMs: 30_000, logger });
  const streamBody = JSON.stringify({ ...request, stream: true, stream_options: { include_usage: true } });
  const ways: Record<string, () => Promise<unknown>> = {
    'adapter, stream assembled (model-step.ts)': async () => {
      const assembler = new StreamAssembler();
      for await (const batch of provider.chatStream(request, ctx())) for (const chunk of batch) assembler.add(chunk);
      return assembler.choices();
    },
    'adapter, whole answer (chat)': () => provider.chat(request, ctx()),
    'stream bytes only, no parsing': async () => {
      const response = await httpPost({
        url: `${baseUrl}/chat/completions`,
        headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
        body: streamBody,
        signal: new AbortController().signal,
      });
      let bytes = 0;
      for await (const part of response.body) bytes += part.byteLength;
      return bytes;
    },
  };
  try {
    await compareInRounds(Object.keys(ways), {
      rounds: ROUNDS,
      heading: `Worker CPU per upstream call of a non-streaming request, ${IN_FLIGHT} in flight, ${ROUNDS} rounds of ${CALLS}:`,
      warmUp: (way) => closedLoop(ways[way] as () => Promise<unknown>, { count: CALLS / 4, inFlight: IN_FLIGHT }),
      measure: (way) => cpuPerCall(ways[way] as () => Promise<unknown>, { count: CALLS, inFlight: IN_FLIGHT }),
    });
  } finally {
    await upstream.stop();
  }
}

runToExit(main);
