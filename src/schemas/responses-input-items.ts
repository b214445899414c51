import { z } from 'zod';
import { pageOf } from './common';

/**
 * `GET /v1/responses/{response_id}/input_items`: the input items of a stored response, as OpenAI lists
 * them (`object: 'list'`, newest first unless `order=asc`, paged by item id with `after` / `before`).
 */

export const inputItemsQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20).describe('How many items to return, 1 to 100.'),
    order: z.enum(['asc', 'desc']).default('desc').describe('`desc` (the default): the last input item first; `asc`: in the order they were sent.'),
    after: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('Return the items that come after this item id in the chosen order (the `last_id` of the previous page).'),
    before: z.string().min(1).max(200).optional().describe('Return the items that come before this item id in the chosen order.'),
    include: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .refine((value) => value === undefined || value.length === 0, 'no extra output data is available from this service')
      .describe('Not supported: no extra output data is available from this service (400 when sent with a value).'),
  })
  .meta({ id: 'ResponseInputItemsQuery' });
export type InputItemsQuery = z.output<typeof inputItemsQuery>;

const itemStatus = z.literal('completed');

const contentPart = z.discriminatedUnion('type', [
  z.object({ type: z.literal('input_text'), text: z.string() }),
  z.object({ type: z.literal('output_text'), text: z.string(), annotations: z.array(z.never()) }),
  z.object({ type: z.literal('refusal'), refusal: z.string() }),
  z.object({ type: z.literal('input_image'), image_url: z.string(), detail: z.enum(['auto', 'low', 'high']), file_id: z.null() }),
]);
export type InputContentView = z.infer<typeof contentPart>;

export const inputItemSchema = z
  .discriminatedUnion('type', [
    z.object({
      type: z.literal('message'),
      id: z.string(),
      status: itemStatus,
      role: z.enum(['user', 'assistant', 'system', 'developer']),
      content: z.array(contentPart),
    }),
    z.object({ type: z.literal('function_call'), id: z.string(), status: itemStatus, call_id: z.string(), name: z.string(), arguments: z.string() }),
    z.object({
      type: z.literal('function_call_output'),
      id: z.string(),
      status: itemStatus,
      call_id: z.string(),
      output: z.union([z.string(), z.array(contentPart)]),
    }),
  ])
  .meta({ id: 'ResponseInputItem' });
export type InputItemView = z.infer<typeof inputItemSchema>;

export const inputItemListSchema = pageOf(inputItemSchema).meta({ id: 'ResponseInputItemList' });
