import type { ChatMessage } from '../domain/chat';
import { readStoredLog } from '../schemas/stored-log';
import type { StoredTurn } from '../store/completion-sources';

interface StoredPayload {
  messages?: ChatMessage[];
}

/**
 * The messages of earlier turns: what the client sent each time (without system messages, which the
 * current request or the Space supply) and what the model answered (read from the log whichever
 * version stored it; a turn whose answer does not read is replayed without one).
 */
export function turnsToMessages(turns: StoredTurn[]): ChatMessage[] {
  return turns.flatMap((turn) => {
    const sent = ((turn.payload as StoredPayload | null)?.messages ?? []).filter((m) => m.role !== 'system' && m.role !== 'developer');
    const answer = readStoredLog(turn.response)?.answer?.choices[0]?.message;
    return answer ? [...sent, { role: 'assistant', content: answer.content ?? null, ...(answer.tool_calls ? { tool_calls: answer.tool_calls } : {}) }] : sent;
  });
}
