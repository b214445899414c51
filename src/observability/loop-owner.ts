/**
 * Which request's work last started on this process's event loop, for the stall watchdog to name. A
 * mark is two array writes and a clock read (well under a microsecond), made where a request's
 * synchronous work on untrusted input begins: its body parse at the edge, a worker's steps. No async
 * hooks: they would cost every promise of every request.
 */
const SLOTS = 16;
const ids: (string | null)[] = new Array<string | null>(SLOTS).fill(null);
const times = new Float64Array(SLOTS);
let next = 0;

/** Notes that `requestId`'s work starts on the loop now. */
export function markLoopOwner(requestId: string): void {
  ids[next] = requestId;
  times[next] = performance.now();
  next = (next + 1) % SLOTS;
}

/**
 * The request that held the loop between `from` and `to` (`performance.now()` ms: the watchdog's last
 * tick and the late one). The stalled callback ran in that span, and its request marked itself when its
 * synchronous work began: the owner is the mark (in the span, or the last one before it) followed by the
 * longest stretch without another mark. Null when no mark is that old or the marks were overwritten.
 */
export function loopOwnerDuring(from: number, to: number): string | null {
  const order = Array.from({ length: SLOTS }, (_, k) => (next + k) % SLOTS).filter((i) => ids[i] !== null && (times[i] as number) <= to);
  let best: string | null = null;
  let longest = -1;
  order.forEach((slot, k) => {
    const after = k + 1 < order.length ? (times[order[k + 1] as number] as number) : to;
    const held = after - Math.max(from, times[slot] as number);
    if (after > from && held > longest) {
      best = ids[slot] as string;
      longest = held;
    }
  });
  return best;
}
