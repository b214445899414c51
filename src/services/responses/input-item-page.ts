import { ApiError } from '../../errors/api-error';
import type { Page } from '../../schemas/common';
import type { InputItemsQuery } from '../../schemas/responses-input-items';

/** Where a cursor id stands in the ordered items; 400 naming the parameter when it names none of them. */
function positionOf(items: { id: string }[], id: string, param: 'after' | 'before'): number {
  const at = items.findIndex((item) => item.id === id);
  if (at < 0) throw new ApiError('invalid_value', `'${param}' does not name an input item of this response.`, param);
  return at;
}

/**
 * One page of a response's input items, as OpenAI pages lists: in `order` (desc: the last item first),
 * the items strictly after `after` and strictly before `before`, at most `limit`. With only `before`,
 * the page is the `limit` items just before it; `has_more` says whether more lie beyond the page in the
 * direction it was read.
 */
export function pageOfItems<T extends { id: string }>(items: T[], query: InputItemsQuery): Page<T> {
  const ordered = query.order === 'asc' ? items : [...items].reverse();
  const start = query.after === undefined ? 0 : positionOf(ordered, query.after, 'after') + 1;
  const end = query.before === undefined ? ordered.length : positionOf(ordered, query.before, 'before');
  const window = ordered.slice(start, Math.max(start, end));
  const backwards = query.before !== undefined && query.after === undefined;
  const data = backwards ? window.slice(-query.limit) : window.slice(0, query.limit);
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: window.length > query.limit };
}
