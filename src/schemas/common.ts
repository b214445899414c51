import { z } from 'zod';

export const uuid = z.uuid();
export const dateTime = z.iso.datetime({ offset: true });

export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('How many items to return, 1 to 100.'),
  after: z.uuid().optional().describe('Return the items that come after this id (the `last_id` of the previous page).'),
});
export type PageQuery = z.infer<typeof pageQuery>;

/** OpenAI's list envelope. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    object: z.literal('list'),
    data: z.array(item),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
    has_more: z.boolean(),
  });
}

export interface Page<T> {
  object: 'list';
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}
