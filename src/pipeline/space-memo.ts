import type { SpaceContext } from '../store/space-context';

/**
 * Values derived from one Space snapshot (a SpaceContext, loaded at one version stamp), computed on
 * first use and dropped with the snapshot: a configuration change bumps the stamp, the next request
 * loads a new snapshot, and everything derived from the old one goes with it (a WeakMap entry lives as
 * long as its snapshot). So nothing on the hot path parses or queries the same configuration twice, and
 * nothing derived outlives the configuration it came from.
 */
const memos = new WeakMap<SpaceContext, Map<string, unknown>>();

function memoOf(space: SpaceContext): Map<string, unknown> {
  let memo = memos.get(space);
  if (!memo) {
    memo = new Map();
    memos.set(space, memo);
  }
  return memo;
}

/** The value of `key` for this snapshot, computed once (an error thrown is not kept: the next call computes again). */
export function derivedOnce<T>(space: SpaceContext, key: string, compute: () => T): T {
  const memo = memoOf(space);
  if (memo.has(key)) return memo.get(key) as T;
  const value = compute();
  memo.set(key, value);
  return value;
}

/** The same for a value read asynchronously: concurrent callers share one read; a failed read is not kept. */
export function readOnce<T>(space: SpaceContext, key: string, read: () => Promise<T>): Promise<T> {
  const memo = memoOf(space);
  const known = memo.get(key) as Promise<T> | undefined;
  if (known) return known;
  const reading = read();
  memo.set(key, reading);
  reading.catch(() => {
    if (memo.get(key) === reading) memo.delete(key);
  });
  return reading;
}
