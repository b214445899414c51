import { z } from 'zod';

/** A chat message as evaluation files carry it: text only. */
const evalMessageSchema = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  content: z.string(),
});

const perModel = (value: z.ZodNumber) => z.record(z.string().min(1), value);

/**
 * One line of the router's evaluation format (JSONL): a prompt and how each model did on it.
 * `outcomes` are scores in [0, 1] (1 = good answer). Cost comes from `cost` as it is, else from
 * `completion_tokens` and a price table, prompt tokens being counted from the prompt.
 */
export const labelledPromptSchema = z.object({
  id: z.string().min(1),
  prompt: z.union([z.string(), z.array(evalMessageSchema).min(1)]),
  category: z.string().min(1).optional(),
  outcomes: perModel(z.number().min(0).max(1)),
  completion_tokens: perModel(z.number().nonnegative()).optional(),
  cost: perModel(z.number().nonnegative()).optional(),
});

export type LabelledPrompt = z.infer<typeof labelledPromptSchema>;
export type EvalMessage = z.infer<typeof evalMessageSchema>;

/** `{model: [USD per 1M prompt tokens, USD per 1M completion tokens]}`, the shape of each set in prices.json. */
export const priceTableSchema = z.record(z.string().min(1), z.tuple([z.number().nonnegative(), z.number().nonnegative()]));
export type PriceTable = z.infer<typeof priceTableSchema>;
