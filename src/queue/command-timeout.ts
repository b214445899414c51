import type { Cluster, Command, Redis } from 'ioredis';
import { HELD_LOOP_MS } from '../domain/loop-timer';

/**
 * A service command Redis did not answer within its time. Its message is ioredis' own for its
 * `commandTimeout`, which `isRedisUnavailable` reads as Redis away (a 503); the wait is for that 503's text.
 */
export class CommandTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super('Command timed out');
    this.name = 'CommandTimeoutError';
  }
}

/** How often a connection's commands in flight are looked at, in ms: a command times out up to this late. */
const SWEEP_MS = 100;

/**
 * ioredis' `commandTimeout` (a command with no answer after `timeoutMs` fails), counted in the process's
 * own time, as the service's other waits on Redis and PostgreSQL are (domain/loop-timer.ts): a loop held
 * while a command was in flight reads the answer that arrived meanwhile instead of failing a command Redis
 * answered in a millisecond.
 *
 * One sweep per connection instead of a timer per command (a timer each cost 1.2 µs of CPU per command more
 * than ioredis' own; this costs about what it does): while commands are in flight, a tick every SWEEP_MS
 * advances the connection's clock by the time since the last one, but by no more than a tick when the tick
 * came late (the loop was held: that time does not count), then, after the I/O of that turn, fails the
 * commands sent `timeoutMs` or more ago on that clock. A command is timed from when it is first written (a
 * command moved or retried by a cluster keeps its time).
 */
export function timeCommands<T extends Redis | Cluster>(client: T, timeoutMs: number): T {
  /** Commands in flight, in the order sent, with the connection's clock when each was. */
  const sentAt = new Map<Command, number>();
  let clockMs = 0;
  let lastTick = 0;
  let ticker: NodeJS.Timeout | undefined;
  const expire = () => {
    for (const [command, at] of sentAt) {
      // Answered (ioredis marks a command resolved), or failed and still here: its time then runs out harmlessly.
      if (command.isResolved) sentAt.delete(command);
      else if (clockMs - at >= timeoutMs) {
        sentAt.delete(command);
        command.reject(new CommandTimeoutError(timeoutMs));
      }
    }
    if (sentAt.size === 0) {
      clearInterval(ticker);
      ticker = undefined;
    }
  };
  /** The connection's clock now: the last tick's, plus the time since, counted as a tick counts it. */
  const now = () => clockMs + Math.min(performance.now() - lastTick, SWEEP_MS + HELD_LOOP_MS);
  const tick = () => {
    clockMs = now();
    lastTick = performance.now();
    setImmediate(expire);
  };
  // Cluster's takes the node a command goes to as a third argument; a server's ignores it.
  const send = client.sendCommand.bind(client) as (command: Command, stream?: unknown, node?: unknown) => unknown;
  const timed = (command: Command, stream?: unknown, node?: unknown): unknown => {
    if (!sentAt.has(command)) {
      if (ticker === undefined) {
        lastTick = performance.now();
        // Unref'd: a command in flight keeps the process alive through its socket, not through this.
        ticker = setInterval(tick, SWEEP_MS).unref();
      }
      sentAt.set(command, now());
    }
    return send(command, stream, node);
  };
  Object.assign(client, { sendCommand: timed });
  return client;
}
