import type { Prisma } from '../../generated/prisma/client';
import type { ResolvedItem } from '../../schemas/responses';
import type { ResponseObject } from '../../schemas/responses-object';
import { inputItemIdOf } from './response-ids';

/** An input item of a stored response, with the id it is listed under. */
export type StoredInputItem = ResolvedItem & { id: string };

/**
 * What the `body` column of a stored response holds: the response object as answered and the items of
 * its `input` (`item_reference`s resolved). Rows stored before input items were kept hold the bare
 * response object: they list no input items.
 */
interface StoredBody {
  response: ResponseObject;
  input_items: StoredInputItem[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The request's input items, each with its own id or one derived from the response's. */
export function storedBodyOf(response: ResponseObject, input: ResolvedItem[]): Prisma.InputJsonValue {
  const inputItems = input.map((item, n): StoredInputItem => ({ ...item, id: item.id ?? inputItemIdOf(response.id, { type: item.type, n }) }));
  const body: StoredBody = { response, input_items: inputItems };
  return body as unknown as Prisma.InputJsonValue;
}

export function readStoredBody(json: Prisma.JsonValue): StoredBody {
  if (isObject(json) && isObject(json.response) && Array.isArray(json.input_items)) return json as unknown as StoredBody;
  return { response: json as unknown as ResponseObject, input_items: [] };
}
