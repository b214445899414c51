import type { ChatMessage } from '../domain/chat';
import type { StoredTurn } from '../store/completion-sources';

interface StoredPayload {
  messages?: ChatMessage[];
}

interface StoredResponse {
  choices?: { message?: ChatMessage }[];
}

/**
 * The messages of earlier turns: what the client sent each time (without system messages, which the
 * current request or the Space supply) and what the model answered.
 */
export function turnsToMessages(turns: StoredTurn[]): ChatMessage[] {
  return turns.flatMap((turn) => {
    const sent = ((turn.payload as StoredPayload | null)?.messages ?? []).filter((m) => m.role !== 'system' && m.role !== 'developer');
    const answer = (turn.response as StoredResponse | null)?.choices?.[0]?.message;
    return answer ? [...sent, { role: 'assistant', content: answer.content ?? null, ...(answer.tool_calls ? { tool_calls: answer.tool_calls } : {}) }] : sent;
  });
}
