import type { ChatMessage, ChatRequest } from '../domain/chat';
import { conversationTokens } from '../text/token-count';
import type { PromptShape } from './learned/prompt-shape';
import { completionTokens, readPrompt, type PromptReading, type RouterModel } from './learned/router-model';

/** What routing needs to know about a request. */
export interface RequestProfile {
  promptTokens: number;
  /** Completion tokens expected (the learned length model, capped by `max_tokens`), for the cost estimate. */
  expectedCompletionTokens: number;
  needs: { functions: boolean; vision: boolean; json: boolean };
  /** The router's reading of the prompt (its kind, ease, expected length), shared by every candidate's quality estimate. */
  reading: PromptReading;
}

function textOf(message: ChatMessage): string {
  if (message.content === null) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ');
}

/** What the router reads of a request: each message's role and text, and how many tools it offers. */
function shapeOfRequest(request: ChatRequest): PromptShape {
  return { messages: request.messages.map((m) => ({ role: m.role, content: textOf(m) })), tools: request.tools?.length ?? 0 };
}

/** Counts the prompt exactly and reads it with the learned router (kind, ease, expected answer length). */
export function profileRequest(request: ChatRequest, router: RouterModel): RequestProfile {
  const shape = shapeOfRequest(request);
  const promptTokens = conversationTokens(shape.messages.map((m) => m.content));
  const reading = readPrompt(router, shape);
  return {
    promptTokens,
    expectedCompletionTokens: Math.min(request.max_tokens ?? Infinity, Math.round(completionTokens(router, '', reading))),
    needs: {
      functions: shape.tools > 0,
      vision: request.messages.some((m) => Array.isArray(m.content) && m.content.some((part) => part.type === 'image_url')),
      json: request.response_format !== undefined && request.response_format.type !== 'text',
    },
    reading,
  };
}
