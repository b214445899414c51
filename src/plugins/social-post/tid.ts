import { randomInt } from 'node:crypto';

/**
 * An AT Protocol TID (timestamp identifier), the record key Bluesky posts use: 53 bits of
 * microseconds since the epoch and a 10-bit clock id, as 13 characters of base32-sortable. We choose
 * the post's key ourselves, before the call, so that after a lost answer we can ask whether that very
 * record exists instead of posting blindly again.
 */
const ALPHABET = '234567abcdefghijklmnopqrstuvwxyz';
const CLOCK_ID_BITS = 10n;
const TID_LENGTH = 13;

export function newTid(nowMs: number = Date.now()): string {
  const micros = BigInt(nowMs) * 1000n + BigInt(randomInt(1000));
  let value = (micros << CLOCK_ID_BITS) | BigInt(randomInt(1 << Number(CLOCK_ID_BITS)));
  let text = '';
  for (let i = 0; i < TID_LENGTH; i += 1) {
    text = (ALPHABET[Number(value & 31n)] ?? '2') + text;
    value >>= 5n;
  }
  return text;
}

export const TID_PATTERN = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/;
