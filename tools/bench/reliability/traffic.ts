/** `count` jobs by `concurrency` clients, each starting its next job when the previous one ends. */
export async function runCount<T>(count: number, concurrency: number, job: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const client = async () => {
    while (next < count) {
      const index = next;
      next += 1;
      results[index] = await job(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(count, concurrency) }, client));
  return results;
}

/** Jobs by `concurrency` clients until `stop()` says so (checked before each job) or `maxJobs` were started. */
export async function runUntil<T>(options: { concurrency: number; maxJobs: number; stop: () => boolean }, job: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const client = async () => {
    while (next < options.maxJobs && !options.stop()) {
      const index = next;
      next += 1;
      results.push(await job(index));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  return results;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Open-loop arrivals: a job every `intervalMs` whether or not the earlier ones ended, until `stop()` says so,
 * so new requests keep arriving while the service stalls (closed-loop clients would all be waiting).
 */
export async function runArrivals<T>(options: { intervalMs: number; stop: () => boolean }, job: (index: number) => Promise<T>): Promise<T[]> {
  const pending: Promise<T>[] = [];
  for (let index = 0; !options.stop(); index += 1) {
    const started = job(index);
    // Handled now, reported by Promise.all below: a job failing while later ones are still being started is no unhandled rejection.
    started.catch(() => undefined);
    pending.push(started);
    await sleep(options.intervalMs);
  }
  return Promise.all(pending);
}
