/**
 * What the micro-benchmarks that compare two ways of doing one thing share (`json-response.ts`,
 * `upstream-client.ts`): a closed loop of calls, rounds that alternate the ways so a busy moment of this
 * shared machine touches each of them, and the table of the figures.
 */

/** Makes `count` calls, `inFlight` at a time. */
export async function closedLoop(call: () => Promise<unknown>, { count, inFlight }: { count: number; inFlight: number }): Promise<void> {
  let sent = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (sent++ < count) await call();
    }),
  );
}

/**
 * Runs `measure` (µs per call of one way) for each way in turn, `rounds` times, after one warm-up of each
 * way; prints one row per way (every round, then the mean) under `heading`.
 */
export async function compareInRounds(ways: string[], { rounds, heading, warmUp, measure }: { rounds: number; heading: string; warmUp(way: string): Promise<void>; measure(way: string): Promise<number> }): Promise<void> {
  const figures = new Map<string, number[]>(ways.map((way) => [way, []]));
  for (const way of ways) await warmUp(way);
  for (let round = 0; round < rounds; round++) for (const way of ways) figures.get(way)?.push(await measure(way));
  const lines = [heading, '| way | rounds (µs per call) | mean |', '| --- | --- | --- |'];
  for (const [way, values] of figures) lines.push(`| ${way} | ${values.map((us) => us.toFixed(1)).join(', ')} | ${(values.reduce((a, b) => a + b, 0) / values.length).toFixed(1)} |`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
