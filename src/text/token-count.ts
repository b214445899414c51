import { countTokens as countO200k } from 'gpt-tokenizer';

/** Tokens of a text under OpenAI's o200k_base encoding (GPT-4o and later). */
export function countTokens(text: string): number {
  return countO200k(text);
}
