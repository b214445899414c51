import { ApiError } from '../../errors/api-error';
import type { PluginInput } from '../types';

/** Longest query sent, in characters (Brave refuses more than 400; longer ones search worse everywhere). */
export const MAX_QUERY_CHARS = 400;

/**
 * The search query: the model's tool-call argument when it called the tool, else the last user
 * message. Whitespace is collapsed and a long message is cut at a word boundary.
 */
export function queryOf(input: PluginInput): string {
  const fromTool = typeof input.args?.query === 'string' ? input.args.query : '';
  const text = (fromTool.trim() ? fromTool : input.query).replace(/\s+/g, ' ').trim();
  if (!text) {
    throw new ApiError('invalid_request', 'web-search needs a query: the last user message has no text to search for', input.args ? 'query' : 'messages');
  }
  if (text.length <= MAX_QUERY_CHARS) return text;
  const cut = text.slice(0, MAX_QUERY_CHARS);
  const lastSpace = cut.lastIndexOf(' ');
  return lastSpace > MAX_QUERY_CHARS / 2 ? cut.slice(0, lastSpace) : cut;
}
