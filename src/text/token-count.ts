import { countTokens as countO200k } from 'gpt-tokenizer';

/** Tokens of a text under OpenAI's o200k_base encoding (GPT-4o and later). */
export function countTokens(text: string): number {
  return countO200k(text);
}

/** Tokens a chat message costs beyond its text (role and separators), as OpenAI counts them. */
const PER_MESSAGE_OVERHEAD = 4;

/** Prompt tokens of a conversation given each message's text: the one count of the service and of `router:eval`. */
export function conversationTokens(texts: readonly string[]): number {
  return texts.reduce((sum, text) => sum + countTokens(text) + PER_MESSAGE_OVERHEAD, 0);
}
