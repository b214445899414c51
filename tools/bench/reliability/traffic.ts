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
