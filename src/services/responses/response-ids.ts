/**
 * The ids of the Responses API, derived from the request log's id (a UUID) so that nothing else has to
 * be stored to find a response's log, or an output item's response: `resp_<32 hex>`, `msg_<32 hex>`,
 * `fc_<32 hex>_<n>`.
 */

const ITEM_ID = /^(?:msg|fc)_([0-9a-f]{32})(?:_\d+)?$/;

function hexOf(requestId: string): string {
  return requestId.replace(/-/g, '');
}

export function responseIdOf(requestId: string): string {
  return `resp_${hexOf(requestId)}`;
}

export function messageItemIdOf(requestId: string): string {
  return `msg_${hexOf(requestId)}`;
}

/** The n-th function call of a response (from 0). */
export function functionCallItemIdOf(requestId: string, n: number): string {
  return `fc_${hexOf(requestId)}_${n}`;
}

/** The response an output item belongs to; null for an id that is not one of ours. */
export function responseIdOfItem(itemId: string): string | null {
  const hex = ITEM_ID.exec(itemId)?.[1];
  return hex ? `resp_${hex}` : null;
}

/**
 * The n-th input item (from 0) of a response, when the request gave it no id: `msg_<32 hex>_in<n>`
 * (`fc_`, `fco_` for function calls and their outputs). Unlike output item ids, `item_reference` cannot name these.
 */
export function inputItemIdOf(responseId: string, { type, n }: { type: 'message' | 'function_call' | 'function_call_output'; n: number }): string {
  const prefix = type === 'message' ? 'msg' : type === 'function_call' ? 'fc' : 'fco';
  return `${prefix}_${responseId.replace(/^resp_/, '')}_in${n}`;
}
