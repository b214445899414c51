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
}

/** One row of the suite: a fault caused for real, and the figures of what the service did with it. */
export interface Fault {
  name: string;
  /** One sentence for the docs and the progress output. */
  summary: string;
  run(ctx: FaultContext): Promise<Row>;
}

/** `full` normally, `short` under `--short`. */
export const size = (ctx: Pick<FaultContext, 'short'>, full: number, short: number) => (ctx.short ? short : full);
