import type { ResponsesContentPart } from '../../schemas/responses';
import type { InputContentView, InputItemView } from '../../schemas/responses-input-items';
import type { StoredInputItem } from '../../services/responses/stored-response';

/** OpenAI's wire shape of a stored response's input items (`GET /v1/responses/{id}/input_items`). */

function partView(part: ResponsesContentPart): InputContentView {
  switch (part.type) {
    case 'input_text':
      return { type: 'input_text', text: part.text };
    case 'output_text':
      return { type: 'output_text', text: part.text, annotations: [] };
    case 'refusal':
      return { type: 'refusal', refusal: part.refusal };
    case 'input_image':
      return { type: 'input_image', image_url: part.image_url ?? '', detail: part.detail ?? 'auto', file_id: null };
  }
}

/** A message's text given as a string is one part: the assistant's output text, anyone else's input text. */
function contentView(role: string, content: string | ResponsesContentPart[]): InputContentView[] {
  if (typeof content !== 'string') return content.map(partView);
  return [role === 'assistant' ? { type: 'output_text', text: content, annotations: [] } : { type: 'input_text', text: content }];
}

export function inputItemView(item: StoredInputItem): InputItemView {
  switch (item.type) {
    case 'message':
      return { type: 'message', id: item.id, status: 'completed', role: item.role, content: contentView(item.role, item.content) };
    case 'function_call':
      return { type: 'function_call', id: item.id, status: 'completed', call_id: item.call_id, name: item.name, arguments: item.arguments };
    case 'function_call_output':
      return {
        type: 'function_call_output',
        id: item.id,
        status: 'completed',
        call_id: item.call_id,
        output: typeof item.output === 'string' ? item.output : item.output.map(partView),
      };
  }
}
