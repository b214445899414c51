import { conversationTokens } from '../../../src/text/token-count';
import type { LabelledPrompt, PriceTable } from './labelled-prompt';

const promptTokenCache = new WeakMap<LabelledPrompt, number>();

/** The prompt's tokens under o200k_base, counted once per line. */
export function promptTokens(line: LabelledPrompt): number {
  const cached = promptTokenCache.get(line);
  if (cached !== undefined) return cached;
  const messages = typeof line.prompt === 'string' ? [line.prompt] : line.prompt.map((m) => m.content);
  const tokens = conversationTokens(messages);
  promptTokenCache.set(line, tokens);
  return tokens;
}

/** USD of `tokens` prompt and `completion` completion tokens at the model's prices. */
export function priced(prices: PriceTable, model: string, tokens: { prompt: number; completion: number }): number {
  const price = prices[model];
  if (!price) throw new Error(`No price for model '${model}' in the price table.`);
  return (tokens.prompt * price[0] + tokens.completion * price[1]) / 1e6;
}

/**
 * What answering the line with the model actually cost: the line's `cost` as it is, else its prompt
 * tokens and `completion_tokens` (0 when absent) at the price table's prices.
 */
export function actualCost(line: LabelledPrompt, model: string, prices: PriceTable | null): number {
  const given = line.cost?.[model];
  if (given !== undefined) return given;
  if (!prices) throw new Error(`Line '${line.id}' has no cost for '${model}' and no --prices were given.`);
  return priced(prices, model, { prompt: promptTokens(line), completion: line.completion_tokens?.[model] ?? 0 });
}
