import { ApiError } from '../errors/api-error';
import type { Page, PageQuery } from '../schemas/common';

export interface CursorRow {
  id: string;
  added_on: Date | null;
}

/** Newest first, ties broken by id, so a cursor is stable under concurrent inserts. */
export const NEWEST_FIRST = [{ added_on: 'desc' as const }, { id: 'desc' as const }];

/** Rows strictly after the cursor row in NEWEST_FIRST order. */
export function afterCursor(cursor: CursorRow) {
  const addedOn = cursor.added_on ?? new Date(0);
  return { OR: [{ added_on: { lt: addedOn } }, { added_on: addedOn, id: { lt: cursor.id } }] };
}

/** Shapes `limit + 1` fetched rows into a page; the extra row only tells whether there is more. */
export function toPage<Row extends { id: string }, Item>(rows: Row[], query: PageQuery, present: (row: Row) => Item): Page<Item> {
  const pageRows = rows.slice(0, query.limit);
  return {
    object: 'list',
    data: pageRows.map(present),
    first_id: pageRows[0]?.id ?? null,
    last_id: pageRows.at(-1)?.id ?? null,
    has_more: rows.length > query.limit,
  };
}

/** `after` names no item of the listing (another organization's ids look the same). */
export function unknownCursor(): ApiError {
  return new ApiError('invalid_value', "'after' does not name an item of this list.", 'after');
}
