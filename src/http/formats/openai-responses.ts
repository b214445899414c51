import type { AssistantMessage, FinishReason, Usage } from '../../domain/chat';
import type { Annotation, CompletionAnswer } from '../../domain/completion';
import type { CompletionMetadata } from '../../schemas/chat-completions';
import type { ResponsesRequest } from '../../schemas/responses';
import type { FunctionCallOutputItem, MessageOutputItem, OutputItem, ResponseObject, ResponsesAnnotation } from '../../schemas/responses-object';
import { functionCallItemIdOf, messageItemIdOf, responseIdOf } from '../../services/responses/response-ids';

/** OpenAI's Responses wire format of a completion's domain results. */

/** The request's settings as the response object repeats them. */
export type ResponseEcho = Pick<
  ResponseObject,
  | 'instructions'
  | 'max_output_tokens'
  | 'parallel_tool_calls'
  | 'previous_response_id'
  | 'reasoning'
  | 'store'
  | 'temperature'
  | 'text'
  | 'tool_choice'
  | 'tools'
  | 'top_p'
  | 'user'
  | 'metadata'
> & { model: string };

export function echoOf(request: ResponsesRequest, { store }: { store: boolean }): ResponseEcho {
  return {
    model: request.model ?? '',
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: null },
    store,
    temperature: request.temperature ?? null,
    text: { format: request.text?.format ?? { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: (request.tools ?? []).map((tool) => ({
      ...tool,
      description: tool.description ?? null,
      parameters: tool.parameters ?? null,
      strict: tool.strict ?? null,
    })),
    top_p: request.top_p ?? null,
    user: request.user ?? null,
    metadata: request.metadata ?? {},
  };
}

export interface ResponseIdentity {
  requestId: string;
  /** Seconds since the epoch. */
  created: number;
}

/** The response before any output: what `response.created` carries. */
export function pendingResponse(identity: ResponseIdentity, echo: ResponseEcho): ResponseObject {
  const { model, ...settings } = echo;
  return {
    id: responseIdOf(identity.requestId),
    object: 'response',
    created_at: identity.created,
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    model,
    output: [],
    service_tier: 'default',
    truncation: 'disabled',
    usage: null,
    switchyard: null,
    ...settings,
  };
}

export function responsesUsageOf(usage: Usage): NonNullable<ResponseObject['usage']> {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens,
  };
}

/** Chat annotations (nested) in the Responses shape (flat); a file citation has no span there. */
export function responsesAnnotationOf(annotation: Annotation): ResponsesAnnotation {
  if (annotation.type === 'url_citation') return { type: 'url_citation', ...annotation.url_citation };
  const { file_id, filename, index } = annotation.file_citation;
  return { type: 'file_citation', file_id, filename, index };
}

export function messageItemOf(requestId: string, text: string, annotations: ResponsesAnnotation[]): MessageOutputItem {
  return {
    type: 'message',
    id: messageItemIdOf(requestId),
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations, logprobs: [] }],
  };
}

export function functionCallItemOf(requestId: string, n: number, call: { id: string; name: string; arguments: string }): FunctionCallOutputItem {
  return { type: 'function_call', id: functionCallItemIdOf(requestId, n), status: 'completed', call_id: call.id, name: call.name, arguments: call.arguments };
}

/** The answer's text (if any) as one message item, then each tool call as a function_call item. */
export function outputItemsOf(requestId: string, message: AssistantMessage & { annotations?: Annotation[] }): OutputItem[] {
  const items: OutputItem[] = [];
  if (message.content) items.push(messageItemOf(requestId, message.content, (message.annotations ?? []).map(responsesAnnotationOf)));
  (message.tool_calls ?? []).forEach((call, n) => items.push(functionCallItemOf(requestId, n, { id: call.id, ...call.function })));
  return items;
}

/** A cut-off answer is `incomplete`, naming why, as OpenAI reports it. */
function endOf(finish: FinishReason | null): Pick<ResponseObject, 'status' | 'incomplete_details'> {
  if (finish === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/** The finished response: its output, usage, the model that answered and Switchyard's metadata. */
export function finishedResponse(
  pending: ResponseObject,
  { answer, metadata, output, finish }: { answer: CompletionAnswer; metadata: CompletionMetadata; output: OutputItem[]; finish: FinishReason | null },
): ResponseObject {
  const end = endOf(finish);
  const itemStatus = end.status === 'completed' ? 'completed' : 'incomplete';
  return {
    ...pending,
    ...end,
    model: answer.model.model,
    temperature: pending.temperature ?? metadata.temperature ?? null,
    max_output_tokens: pending.max_output_tokens ?? metadata.max_tokens ?? null,
    output: output.map((item) => ({ ...item, status: itemStatus })),
    usage: responsesUsageOf(answer.usage),
    switchyard: metadata,
  };
}

/** The whole response of a completion answered at once. */
export function responseBodyOf(pending: ResponseObject, { answer, metadata }: { answer: CompletionAnswer; metadata: CompletionMetadata }): ResponseObject {
  const choice = answer.choices[0];
  const output = choice ? outputItemsOf(answer.requestId, choice.message) : [];
  return finishedResponse(pending, { answer, metadata, output, finish: choice?.finish_reason ?? null });
}
