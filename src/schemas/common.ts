import { z } from 'zod';

export const uuid = z.uuid();
export const dateTime = z.iso.datetime({ offset: true });

/** Largest value of a PostgreSQL `integer` (int4): the bound of every integer a client sends that is stored. */
export const INT4_MAX = 2_147_483_647;

/** A whole number that fits the PostgreSQL integer it is stored in (or the JSON a worker turns into one). */
export const int4 = z
  .number()
  .int()
  .min(-INT4_MAX - 1)
  .max(INT4_MAX);

/** The first and last instants (ms since the epoch) a request may store: PostgreSQL has no year 0. */
const STORABLE_TIME_MS = { min: Date.parse('0001-01-01T00:00:00Z'), max: Date.parse('9999-12-31T23:59:59.999Z') };

/** A date-time a client sends to be stored: an instant PostgreSQL's timestamp can hold (year 1 to 9999 in UTC). */
export const storableDateTime = dateTime.refine((value) => {
  const time = Date.parse(value);
  return time >= STORABLE_TIME_MS.min && time <= STORABLE_TIME_MS.max;
}, 'must lie between years 0001 and 9999 (UTC)');

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
