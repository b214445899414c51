/** A pass that runs on a timer, never two at once. */
export interface Periodic {
  /** Runs a pass now, or joins the one under way; its failure is the caller's. */
  now(): Promise<void>;
  stop(): void;
}

/**
 * Runs `pass` every `intervalMs` on an unref'd timer (it keeps no process alive), never two passes at
 * once: a tick that meets a pass under way is skipped. A timed pass that fails is told to `onError`, once;
 * the next one is tried as usual.
 */
export function periodic(intervalMs: number, pass: () => Promise<void>, onError: (err: unknown) => void): Periodic {
  let running: Promise<void> | null = null;
  const once = () => (running ??= pass().finally(() => (running = null)));
  // A tick meeting a pass under way lets it be: joining it would report its failure once per tick.
  const timer = setInterval(() => {
    if (running === null) once().catch(onError);
  }, intervalMs);
  timer.unref();
  return { now: once, stop: () => clearInterval(timer) };
}
