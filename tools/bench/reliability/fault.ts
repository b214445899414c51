import type { Db } from '../../../src/store/db';
import type { ApiClient } from './completions';
import type { ReliabilityEnvironment } from './environment';
import type { Row } from './row';
import type { RowSpace, SpaceSetup } from './spaces';
import type { Stack } from './stack';
import type { Upstream } from './upstream';

/** Sizes are smaller with `--short` (CI); every count and wait is bounded either way. */
export interface FaultContext {
  short: boolean;
  env: ReliabilityEnvironment;
  db: Db;
  upstream: Upstream;
  stack: Stack;
  /** A fresh Space for the row (its own organization and models), configured through the API. */
  createSpace(setup: SpaceSetup): Promise<RowSpace>;
  /** A client of the Space that sends to the running API processes in turn. */
  client(space: RowSpace): ApiClient;
  /** Of these `x-switchyard-log-id` values (null: the request was not accepted), those with no log row after the grace period (ms). */
  lostLogs(logIds: (string | null)[], graceMs?: number): Promise<number>;
  say(text: string): void;
  /** How a service process is started (the compiled entry, or tsx): for a row that runs a stack of its own. */
  command: string[];
  /** The run's scratch folder (removed at the end): a row's own logs and files go in a folder under it. */
  scratch: string;
  /**
   * Registers an undo step with the run's cleanups, so an interrupted run (Ctrl-C, SIGTERM) undoes it too; the
   * step must be safe to run twice (the row also runs it when it ends).
   */
  cleanup(name: string, run: () => Promise<unknown>): void;
}

/** One row of the suite: a fault caused for real, and the figures of what the service did with it. */
export interface Fault {
  name: string;
  /** One sentence for the docs and the progress output. */
  summary: string;
  /**
   * `own`: the row starts its own service processes (on another Redis), so a run of only such rows starts no
   * shared stack. The shared stack (ctx.stack) unless given.
   */
  stack?: 'shared' | 'own';
  /** Why the row is left out of `--short` (CI), when it is: printed in place of the row. Named with `--rows`, it runs anyway. */
  skippedInShortRun?: string;
  run(ctx: FaultContext): Promise<Row>;
}

/** `full` normally, `short` under `--short`. */
export const size = (ctx: Pick<FaultContext, 'short'>, full: number, short: number) => (ctx.short ? short : full);
