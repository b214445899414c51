import type { ChatMessage, ContentPart, ToolCall } from '../../domain/chat';
import { UpstreamError } from '../../errors/upstream-error';
import type { GeminiContent, GeminiPart } from './wire';

/**
 * OpenAI-shaped messages → Gemini `contents` and `systemInstruction`. Roles: user → `user`,
 * assistant → `model`; tool results become `functionResponse` parts of a `user` turn; system and
 * developer messages, wherever they stand, are gathered into `systemInstruction` (Gemini has no
 * system turn). Consecutive turns of one role are merged, since Gemini expects them to alternate.
 */

/**
 * Documented by Google for replaying function calls whose signature is unknown (history from another
 * model or, here, from OpenAI-shaped messages, which have no field for it). Gemini 3 refuses a
 * replayed `functionCall` without a signature; older models ignore it.
 */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

/** MIME types by file extension, for image URLs passed by reference; anything else is sent as JPEG. */
const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
};

function mimeFromUrl(url: string): string {
  const path = url.split(/[?#]/)[0] ?? '';
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return (extension && MIME_BY_EXTENSION[extension]) || 'image/jpeg';
}

/**
 * `data:` URLs are sent inline (base64); http(s) URLs by reference as `fileData` with a MIME type
 * guessed from the extension (default `image/jpeg`), which Gemini fetches itself.
 */
export function imagePart(url: string): GeminiPart {
  const data = /^data:([^;,]+)?((?:;[^;,]+)*?)(;base64)?,(.*)$/s.exec(url);
  if (!data) return { fileData: { mimeType: mimeFromUrl(url), fileUri: url } };
  const [, mimeType = 'image/jpeg', , base64, payload = ''] = data;
  return { inlineData: { mimeType, data: base64 ? payload : Buffer.from(decodeURIComponent(payload)).toString('base64') } };
}

function textParts(content: ChatMessage['content']): GeminiPart[] {
  if (typeof content === 'string') return content ? [{ text: content }] : [];
  return (content ?? []).flatMap((part: ContentPart): GeminiPart[] => {
    if (part.type === 'image_url') return [imagePart(part.image_url.url)];
    return part.text ? [{ text: part.text }] : [];
  });
}

/** Tool arguments as Gemini's `args` object; arguments that are not a JSON object are wrapped. */
function argsOf(call: ToolCall): Record<string, unknown> {
  const raw = call.function.arguments.trim();
  if (!raw) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { input: parsed };
  } catch {
    return { input: raw };
  }
}

function modelParts(message: ChatMessage): GeminiPart[] {
  const calls = (message.tool_calls ?? []).map((call, index): GeminiPart => ({
    functionCall: { name: call.function.name, args: argsOf(call) },
    // Gemini signs only the first call of a parallel batch.
    ...(index === 0 ? { thoughtSignature: SKIP_THOUGHT_SIGNATURE } : {}),
  }));
  return [...textParts(message.content), ...calls];
}

/** Gemini needs the function's name on a result; OpenAI's tool message only has the call id. */
function toolName(messages: ChatMessage[], position: number): string {
  const message = messages[position];
  for (let i = position - 1; i >= 0; i -= 1) {
    const call = messages[i]?.tool_calls?.find((c) => c.id === message?.tool_call_id);
    if (call) return call.function.name;
  }
  if (message?.name) return message.name;
  throw new UpstreamError({
    kind: 'bad_request',
    provider: 'gemini',
    message: `Tool message ${position} answers tool_call_id '${message?.tool_call_id ?? ''}', which no earlier assistant message made.`,
  });
}

/** The result as Gemini's `response` object: a JSON object as it is, anything else under `output`. */
function toolResponse(content: ChatMessage['content']): Record<string, unknown> {
  const text = typeof content === 'string' ? content : (content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Not JSON: sent as text below.
  }
  return { output: text };
}

function toContent(messages: ChatMessage[], position: number): GeminiContent | null {
  const message = messages[position];
  if (!message) return null;
  switch (message.role) {
    case 'system':
    case 'developer':
      return null;
    case 'assistant':
      return { role: 'model', parts: modelParts(message) };
    case 'tool':
      return { role: 'user', parts: [{ functionResponse: { name: toolName(messages, position), response: toolResponse(message.content) } }] };
    case 'user':
      return { role: 'user', parts: textParts(message.content) };
  }
}

export function toContents(messages: ChatMessage[]): GeminiContent[] {
  const contents: GeminiContent[] = [];
  for (let position = 0; position < messages.length; position += 1) {
    const content = toContent(messages, position);
    if (!content || content.parts.length === 0) continue;
    const previous = contents.at(-1);
    if (previous?.role === content.role) previous.parts.push(...content.parts);
    else contents.push(content);
  }
  return contents;
}

export function systemInstructionOf(messages: ChatMessage[]): { parts: { text: string }[] } | undefined {
  const parts = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .flatMap((m) => textParts(m.content))
    .flatMap((part) => (part.text ? [{ text: part.text }] : []));
  return parts.length > 0 ? { parts } : undefined;
}
