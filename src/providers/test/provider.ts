import type { ChatChunk, ChatRequest, ChatResult, ToolCall } from '../../domain/chat';
import { sumUsage } from '../../domain/chat';
import { UpstreamError } from '../../errors/upstream-error';
import type { Provider, ProviderContext } from '../types';
import { echoAnswer, textOf, type EchoAnswer } from './echo-answer';
import { TEST_EMBEDDING_NAMESPACE, testEmbeddings } from './hashed-embedding';

/** What `test-fixed` always answers. */
export const FIXED_ANSWER = 'This is a fixed answer from the Switchyard test model.';
/** How long `test-slow` waits before answering, in ms. */
export const SLOW_DELAY_MS = 1500;
/** Characters of a tool call's arguments per streamed delta, as a real model sends them in pieces. */
const ARGUMENT_PIECE = 16;

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

async function prepare(request: ChatRequest, ctx: ProviderContext): Promise<EchoAnswer> {
  if (request.model === 'error')
    throw new UpstreamError({ kind: 'server_error', provider: 'test', status: 500, message: 'The test-error model always fails.' });
  if (request.model === 'fixed') return { kind: 'text', text: FIXED_ANSWER };
  if (request.model === 'slow') await wait(SLOW_DELAY_MS, ctx.signal);
  return echoAnswer(request);
}

const answerLength = (answer: EchoAnswer) => (answer.kind === 'text' ? answer.text : `${answer.call.function.name}${answer.call.function.arguments}`);

/** Choices asked for (`n`): each is the same deterministic answer. */
const choiceCount = (request: ChatRequest) => Math.max(1, request.n ?? 1);

function usageOf(request: ChatRequest, answer: EchoAnswer) {
  const prompt = request.messages.reduce((sum, m) => sum + tokens(textOf(m.content)), 0);
  return sumUsage(prompt, tokens(answerLength(answer)) * choiceCount(request));
}

/** A tool call as OpenAI streams it: the id and name first, then the arguments in pieces. */
function* toolCallChunks(call: ToolCall, index: number): Iterable<ChatChunk[]> {
  yield [
    {
      choices: [
        {
          index,
          delta: { role: 'assistant', tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] },
          finish_reason: null,
        },
      ],
    },
  ];
  const args = call.function.arguments;
  for (let at = 0; at < args.length; at += ARGUMENT_PIECE) {
    yield [{ choices: [{ index, delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(at, at + ARGUMENT_PIECE) } }] }, finish_reason: null }] }];
  }
}

function* textChunks(text: string, index: number): Iterable<ChatChunk[]> {
  yield [{ choices: [{ index, delta: { role: 'assistant', content: '' }, finish_reason: null }] }];
  // A word a batch, as a network read would bring them.
  for (const piece of text.match(/\S+\s*|\s+/g) ?? []) {
    yield [{ choices: [{ index, delta: { content: piece }, finish_reason: null }] }];
  }
}

/**
 * Built-in models that answer locally with no network (their output is test output, not a model's):
 * `echo` repeats the last user message, calls tools and answers JSON mode deterministically
 * (`echo-answer.ts`); `fixed` always says the same; `slow` answers as `echo` after a delay; `error`
 * always fails (retryable); `embedding` gives hashed n-gram vectors (`hashed-embedding.ts`).
 */
export const testProvider: Provider = {
  id: 'test',
  async chat(request, ctx): Promise<ChatResult> {
    const answer = await prepare(request, ctx);
    const choices = Array.from({ length: choiceCount(request) }, (_, index) =>
      answer.kind === 'text'
        ? { index, message: { role: 'assistant' as const, content: answer.text }, finish_reason: 'stop' as const }
        : { index, message: { role: 'assistant' as const, content: null, tool_calls: [answer.call] }, finish_reason: 'tool_calls' as const },
    );
    return { upstreamId: `test-${request.model}`, model: request.model, choices, usage: usageOf(request, answer) };
  },
  async *chatStream(request, ctx): AsyncIterable<ChatChunk[]> {
    const answer = await prepare(request, ctx);
    const count = choiceCount(request);
    // One choice after the other (OpenAI interleaves them; a client tells them apart by index either way).
    for (let index = 0; index < count; index++) yield* answer.kind === 'text' ? textChunks(answer.text, index) : toolCallChunks(answer.call, index);
    const finish = answer.kind === 'text' ? 'stop' : 'tool_calls';
    yield [{ choices: Array.from({ length: count }, (_, index) => ({ index, delta: {}, finish_reason: finish })), usage: usageOf(request, answer) }];
  },
  async embed(request) {
    if (request.model !== TEST_EMBEDDING_NAMESPACE)
      throw new UpstreamError({ kind: 'bad_request', provider: 'test', status: 400, message: `the test provider has no embedding model '${request.model}'` });
    return testEmbeddings(request.inputs, request.dimensions);
  },
};
