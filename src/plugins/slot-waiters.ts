/** One call waiting in this process for a slot of one backend. */
interface Waiter {
  /** Set while the call can be woken (it is trying or waiting); cleared once it is woken. */
  wake: (() => void) | null;
}

/**
 * This process's waiters per backend key, oldest first. A freed slot wakes the oldest waiter of its
 * key that is not already awake, so a release costs one retry per worker process rather than one
 * per waiting call, and calls of one process are served in arrival order.
 */
export class SlotWaiters {
  private readonly byKey = new Map<string, Waiter[]>();

  /** Joins the queue of `key`; `leave` must be called once the call has its slot or gives up. */
  join(key: string): { next: () => Promise<void>; leave: () => void } {
    const waiter: Waiter = { wake: null };
    const queue = this.byKey.get(key) ?? [];
    queue.push(waiter);
    this.byKey.set(key, queue);
    return {
      // Arms a wake-up before the caller's next attempt, so a slot freed during the attempt is not missed.
      next: () => new Promise<void>((resolve) => (waiter.wake = resolve)),
      leave: () => {
        waiter.wake = null;
        const rest = (this.byKey.get(key) ?? []).filter((entry) => entry !== waiter);
        if (rest.length === 0) this.byKey.delete(key);
        else this.byKey.set(key, rest);
      },
    };
  }

  /** A slot of `key` was freed (here or in another worker): the oldest armed waiter tries again. */
  wakeOne(key: string): void {
    const waiter = this.byKey.get(key)?.find((entry) => entry.wake !== null);
    if (!waiter?.wake) return;
    const wake = waiter.wake;
    waiter.wake = null;
    wake();
  }
}
