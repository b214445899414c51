import { chatCompletionBody, chatCompletionJson, openAiChatSink } from '../../src/formats/openai-chat';
import { metadataOf, withJsonField } from '../../src/formats/completion-metadata';
import { SerialisedBody, type WireSink } from '../../src/formats/wire-sink';
import { anthropicMessageBody, anthropicMessageJson } from '../../src/http/formats/anthropic-message';
import { finishedOf, testResult } from '../helpers/completion-result';

/** The metadata is serialised once, by the worker; the edges write its text into their bodies as it is. */

const result = testResult({
  answer: { choices: [{ index: 0, message: { role: 'assistant', content: 'Oslo "the capital".\n' }, finish_reason: 'stop' }] },
  report: { warnings: ['a', 'b'], labels: { team: 'x' }, error: 'late', maxTokens: 30 },
});

describe('a body written with the metadata as JSON text', () => {
  it('is byte for byte the body serialised whole (chat completion)', () => {
    expect(chatCompletionJson(finishedOf(result))).toBe(JSON.stringify(chatCompletionBody(result)));
  });

  it('is byte for byte the body serialised whole (Anthropic message)', () => {
    expect(anthropicMessageJson(finishedOf(result))).toBe(JSON.stringify({ ...anthropicMessageBody(result), metadata: metadataOf(result) }));
  });

  it('adds the field to an empty object too', () => {
    expect(withJsonField('{}', 'metadata', '{"a":1}')).toBe('{"metadata":{"a":1}}');
    expect(withJsonField('{"x":[1]}', 'metadata', 'null')).toBe('{"x":[1],"metadata":null}');
  });

  it('goes to the JSON sink serialised, and a stream’s closing chunk carries it', () => {
    const bodies: unknown[] = [];
    const chunks: string[] = [];
    const wire: WireSink = {
      chunk: (data) => void chunks.push(data),
      comment: () => undefined,
      done: (body) => void bodies.push(body),
      error: () => undefined,
    };
    openAiChatSink(wire, { requestId: result.requestId, created: 0 }, { stream: false }).done(finishedOf(result));
    expect(bodies[0]).toBeInstanceOf(SerialisedBody);
    expect(JSON.parse((bodies[0] as SerialisedBody).text)).toEqual(chatCompletionBody(result));

    openAiChatSink(wire, { requestId: result.requestId, created: 0 }, { stream: true }).done(finishedOf({ ...result, choices: [] }));
    expect(JSON.parse(chunks[0] as string)).toMatchObject({ usage: result.usage, metadata: { warning: 'a b', error: 'late', max_tokens: 30 } });
  });
});
