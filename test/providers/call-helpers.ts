import pino from 'pino';
import type { ChatChunk } from '../../src/domain/chat';
import type { UpstreamError } from '../../src/errors/upstream-error';
import type { ProviderContext } from '../../src/providers/types';

const silent = pino({ level: 'silent' });

/** A call context against a simulator base URL, with the simulator's accepted key. */
export function simulatorContext(baseUrl: string, overrides: Partial<ProviderContext> = {}): ProviderContext {
  return { apiKey: 'sim-key', baseUrl, signal: new AbortController().signal, timeoutMs: 5000, logger: silent, ...overrides };
}

/** Every chunk of a stream, its batches flattened; a batch is never empty. */
export async function collect(stream: AsyncIterable<ChatChunk[]>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const batch of stream) {
    if (batch.length === 0) throw new Error('a provider yielded an empty batch');
    chunks.push(...batch);
  }
  return chunks;
}

/** The error a call rejects with, or undefined when it succeeds. */
export function failure(promise: Promise<unknown>): Promise<UpstreamError | undefined> {
  return promise.then(
    () => undefined,
    (err: unknown) => err as UpstreamError,
  );
}
