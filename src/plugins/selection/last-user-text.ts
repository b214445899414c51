import type { ChatMessage } from '../../domain/chat';

/**
 * The text pre-selection reads: the last user message's text parts. Earlier turns are left out (see
 * `SelectionInput.text`); a follow-up that leans on one ("and tomorrow?") is a known miss.
 */
export function lastUserText(messages: readonly ChatMessage[]): string {
  // Node 20 has `findLast`, but the TypeScript lib this project targets does not list it.
  const last = [...messages].reverse().find((m) => m.role === 'user');
  if (!last || last.content === null) return '';
  if (typeof last.content === 'string') return last.content;
  return last.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}
