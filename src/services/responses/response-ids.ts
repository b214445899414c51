/**
 * The ids of the Responses API, derived from the request log's id (a UUID) so that nothing else has to
 * be stored to find a response's log, or an output item's response: `resp_<32 hex>`, `msg_<32 hex>`,
 * `fc_<32 hex>_<n>`.
 */

const HEX_OF_UUID = /^([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$/;
const ITEM_ID = /^(?:msg|fc)_([0-9a-f]{32})(?:_\d+)?$/;
const RESPONSE_ID = /^resp_([0-9a-f]{32})$/;

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

/** The request log's id of a response id; null for anything that is not one of ours. */
export function requestIdOfResponse(responseId: string): string | null {
  const hex = RESPONSE_ID.exec(responseId)?.[1];
  const parts = hex ? HEX_OF_UUID.exec(hex) : null;
  return parts ? parts.slice(1).join('-') : null;
}

/** The response an output item belongs to; null for an id that is not one of ours. */
export function responseIdOfItem(itemId: string): string | null {
  const hex = ITEM_ID.exec(itemId)?.[1];
  return hex ? `resp_${hex}` : null;
}
