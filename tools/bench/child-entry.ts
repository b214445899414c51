/** What a benchmark's child process started: what it tells its parent once ready, and how to stop it. */
export interface StartedChild {
  ready: object;
  close(): Promise<unknown>;
}

/**
 * Runs a benchmark's child-process entry (an upstream, plugin backends, the floor server): prints its
 * `ready` object as one JSON line once started, and stops when its stdin closes (the parent is gone),
 * on SIGTERM or SIGINT. A start that fails is reported under `name` and exits 1.
 */
export function runChildEntry(name: string, start: () => Promise<StartedChild>): void {
  start()
    .then(({ ready, close }) => {
      process.stdout.write(`${JSON.stringify(ready)}\n`);
      const stop = () => {
        close().finally(() => process.exit(0));
      };
      process.stdin.on('end', stop);
      process.stdin.on('close', stop);
      process.stdin.resume();
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
    })
    .catch((err: unknown) => {
      process.stderr.write(`${name} failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    });
}
