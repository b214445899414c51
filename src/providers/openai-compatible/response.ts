import { sumUsage, type AssistantMessage, type ChatChoice, type ChatResult, type ToolCall } from '../../domain/chat';
import { UpstreamError } from '../../errors/upstream-error';
import { errorInPayload } from './errors';
import { argumentsText, contentText, finishReasonOf, isRecord, stringOr, usageOf, type WireCompletion, type WireToolCall } from './wire';

function toolCallOf(raw: WireToolCall, position: number): ToolCall {
  return {
    // A few servers leave the id out; clients need one to answer the call.
    id: stringOr(raw.id, `call_${position}`),
    type: 'function',
    function: { name: stringOr(raw.function?.name, ''), arguments: argumentsText(raw.function?.arguments) ?? '' },
  };
}

function choiceOf(raw: unknown, position: number): ChatChoice {
  const choice = isRecord(raw) ? raw : {};
  const wire = isRecord(choice.message) ? choice.message : {};
  const calls = Array.isArray(wire.tool_calls) ? wire.tool_calls.filter(isRecord).map((call, i) => toolCallOf(call as WireToolCall, i)) : [];
  const message: AssistantMessage = { role: 'assistant', content: contentText(wire.content) };
  if (calls.length > 0) message.tool_calls = calls;
  return {
    index: typeof choice.index === 'number' ? choice.index : position,
    message,
    finish_reason: finishReasonOf(choice.finish_reason, calls.length > 0),
  };
}

/**
 * A `chat.completion` body as our ChatResult. A 2xx body that carries an error (OpenRouter reports
 * failures during generation this way) throws it; a body without choices is `invalid_response`.
 */
export function chatResultOf(provider: string, raw: unknown): ChatResult {
  if (!isRecord(raw)) throw new UpstreamError({ kind: 'invalid_response', provider, message: `${provider} sent an answer that is not an object` });
  const body = raw as WireCompletion;
  const error = errorInPayload(provider, body);
  if (error) throw error;
  if (!Array.isArray(body.choices)) throw new UpstreamError({ kind: 'invalid_response', provider, message: `${provider} sent an answer without choices` });
  return {
    upstreamId: stringOr(body.id, ''),
    model: stringOr(body.model, ''),
    choices: body.choices.map(choiceOf),
    usage: usageOf(body) ?? sumUsage(0, 0),
  };
}
