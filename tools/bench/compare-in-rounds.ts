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

/** This process's CPU (user + system) per call, in µs, over a closed loop of `count` calls. */
export async function cpuPerCall(call: () => Promise<unknown>, loop: { count: number; inFlight: number }): Promise<number> {
  const before = process.cpuUsage();
  await closedLoop(call, loop);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / loop.count;
}

/**
 * Runs `measure` (µs per call of one way) for each way in turn, `rounds` times, after one warm-up of each
 * way; prints one row per way (every round, then the mean) under `heading`.
 */
export async function compareInRounds(
  ways: string[],
  { rounds, heading, warmUp, measure }: { rounds: number; heading: string; warmUp(way: string): Promise<void>; measure(way: string): Promise<number> },
): Promise<void> {
  const figures = new Map<string, number[]>(ways.map((way) => [way, []]));
  for (const way of ways) await warmUp(way);
  for (let round = 0; round < rounds; round++) for (const way of ways) figures.get(way)?.push(await measure(way));
  const lines = [heading, '| way | rounds (µs per call) | mean |', '| --- | --- | --- |'];
  for (const [way, values] of figures)
    lines.push(`| ${way} | ${values.map((us) => us.toFixed(1)).join(', ')} | ${(values.reduce((a, b) => a + b, 0) / values.length).toFixed(1)} |`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Runs a micro-benchmark's `main` and exits when it ends (keep-alive agents would hold the process open). */
export function runToExit(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
