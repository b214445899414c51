import type { ChatChunk, ChatMessage, ChatRequest, ChatResult } from '../../domain/chat';
import { sumUsage } from '../../domain/chat';
import { UpstreamError } from '../../errors/upstream-error';
import type { Provider, ProviderContext } from '../types';

/** What `test-fixed` always answers. */
export const FIXED_ANSWER = 'This is a fixed answer from the Switchyard test model.';
/** How long `test-slow` waits before answering, in ms. */
export const SLOW_DELAY_MS = 1500;

function textOf(message: ChatMessage | undefined): string {
  if (!message || message.content === null) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function answerText(request: ChatRequest): string {
  if (request.model === 'fixed') return FIXED_ANSWER;
  const lastUser = [...request.messages].reverse().find((m) => m.role === 'user');
  return textOf(lastUser);
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new UpstreamError({ kind: 'aborted', provider: 'test', message: 'The request was cancelled.' }));
      },
      { once: true },
    );
  });
}

/** Roughly four characters a token, so usage looks like a real model's. */
const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

async function prepare(request: ChatRequest, ctx: ProviderContext): Promise<string> {
  if (request.model === 'error') throw new UpstreamError({ kind: 'server_error', provider: 'test', status: 500, message: 'The test-error model always fails.' });
  if (request.model === 'slow') await wait(SLOW_DELAY_MS, ctx.signal);
  return answerText(request);
}

function usageOf(request: ChatRequest, answer: string) {
  const prompt = request.messages.reduce((sum, m) => sum + tokens(textOf(m)), 0);
  return sumUsage(prompt, tokens(answer));
}

/**
 * Built-in models that answer locally with no network: `echo` repeats the last user message,
 * `fixed` always says the same, `slow` echoes after a delay, `error` always fails (retryable).
 */
export const testProvider: Provider = {
  id: 'test',
  async chat(request, ctx): Promise<ChatResult> {
    const answer = await prepare(request, ctx);
    return {
      upstreamId: `test-${request.model}`,
      model: request.model,
      choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }],
      usage: usageOf(request, answer),
    };
  },
  async *chatStream(request, ctx): AsyncIterable<ChatChunk[]> {
    const answer = await prepare(request, ctx);
    yield [{ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }];
    // A word a batch, as a network read would bring them.
    for (const piece of answer.match(/\S+\s*|\s+/g) ?? []) {
      yield [{ choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] }];
    }
    yield [{ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: usageOf(request, answer) }];
  },
};
