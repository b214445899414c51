import type { ChatMessage } from '../domain/chat';
import { storedResult } from '../domain/completion';
import type { StoredTurn } from '../store/completion-sources';

interface StoredPayload {
  messages?: ChatMessage[];
}

interface StoredChatCompletion {
  choices?: { message?: ChatMessage }[];
}

/**
 * The messages of earlier turns: what the client sent each time (without system messages, which the
 * current request or the Space supply) and what the model answered.
 */
export function turnsToMessages(turns: StoredTurn[]): ChatMessage[] {
  return turns.flatMap((turn) => {
    const sent = ((turn.payload as StoredPayload | null)?.messages ?? []).filter((m) => m.role !== 'system' && m.role !== 'developer');
    // Rows stored before results were kept in the domain shape hold the chat completion itself.
    const answer = storedResult(turn.response)?.choices[0]?.message ?? (turn.response as StoredChatCompletion | null)?.choices?.[0]?.message;
    return answer ? [...sent, { role: 'assistant', content: answer.content ?? null, ...(answer.tool_calls ? { tool_calls: answer.tool_calls } : {}) }] : sent;
  });
}
