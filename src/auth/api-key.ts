import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';

const KEY_PREFIX = 'sy-';
/** 32 random bytes: 256 bits, so a fast hash is enough to store it (no dictionary to attack). */
const KEY_BYTES = 32;
const KEY_END_LENGTH = 4;
/** Characters after `sy-` that the failed-authentication throttle counts by: 48 bits, so no two real keys share one by chance. */
const THROTTLE_PREFIX_LENGTH = 8;

export interface GeneratedKey {
  /** Shown to the caller once and never stored. */
  secret: string;
  hashedKey: string;
  keyEnd: string;
}

/**
 * SHA-256 of the key, in hex. Every request hashes the key it presents: `crypto.hash` (Node 20.12 and
 * later) does it in one call, without the Hash object `createHash` makes each time.
 */
export function hashApiKey(secret: string): string {
  if (typeof hash === 'function') return hash('sha256', secret, 'hex');
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function generateApiKey(): GeneratedKey {
  const secret = `${KEY_PREFIX}${randomBytes(KEY_BYTES).toString('base64url')}`;
  return { secret, hashedKey: hashApiKey(secret), keyEnd: secret.slice(-KEY_END_LENGTH) };
}

/**
 * The part of a presented key that failed attempts are counted by: the 8 characters after `sy-` (the
 * first 8 of anything else). Someone trying variations of a key they partly know stays on one prefix.
 */
export function throttlePrefixOf(secret: string): string {
  const body = secret.startsWith(KEY_PREFIX) ? secret.slice(KEY_PREFIX.length) : secret;
  return body.slice(0, THROTTLE_PREFIX_LENGTH);
}

/** Constant-time comparison of two hex digests. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
