import IORedis from 'ioredis';

/**
 * Redis commands per completion as the servers count them (`INFO commandstats`: every command a client
 * sends, and every command a Lua script runs, each its own call), the figure issue 22 sets a goal on.
 * MONITOR's round trips (redis-round-trips.ts) count a script as one; this counts what it does inside.
 */

/** One server's counters at one moment. */
interface NodeReading {
  node: string;
  calls: Map<string, number>;
  /** used_cpu_user + used_cpu_sys, in ms (the server's main thread and its others). */
  cpuMs: number;
  /** A replica's counts repeat its master's writes: only masters are counted. */
  master: boolean;
}

export type CommandReading = NodeReading[];

/** Reads every server's counters (one `INFO commandstats cpu replication` each, which the next reading counts as one `info`). */
export async function readCommands(nodes: string[]): Promise<CommandReading> {
  return Promise.all(
    nodes.map(async (node) => {
      const redis = new IORedis(node, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await redis.connect();
        const info = String(await redis.call('info', 'commandstats', 'cpu', 'replication'));
        const calls = new Map<string, number>();
        for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(match[1] ?? '', Number(match[2]));
        const seconds = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
        return { node, calls, cpuMs: (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1000, master: /^role:master/m.test(info) };
      } finally {
        redis.disconnect();
      }
    }),
  );
}

/** One server's part of a window. */
export interface NodeCommands {
  node: string;
  commands: number;
  /** Its commands over every server's, 0..1. */
  share: number;
  /** The server's CPU per completion, in ms. */
  cpuMsPerCompletion: number;
}

/** Commands during a window, per completion, by name and by server. */
export interface RedisCommands {
  completions: number;
  /** Every server's commands (Lua's included) per completion. */
  perCompletion: number;
  /** Per completion by command name, most frequent first. */
  byCommand: Record<string, number>;
  nodes: NodeCommands[];
  /** The largest server share, 0..1 (1 on one server). */
  maxShare: number;
  /** Commands the servers ran during an idle second before the window, scaled to the window's length, per completion: timers, and on a shared Redis others' work. */
  idlePerCompletion: number;
}

/** Calls per command name between two readings of one server, less the one `info` of the first reading. */
function callsBetween(before: NodeReading | undefined, after: NodeReading): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, calls] of after.calls) {
    const delta = calls - (before?.calls.get(name) ?? 0) - (name === 'info' ? 1 : 0);
    if (delta > 0) out.set(name, delta);
  }
  return out;
}

/** Every command between two readings, all servers together. */
export function commandsBetween(before: CommandReading, after: CommandReading): number {
  return after
    .filter((node) => node.master)
    .reduce(
      (sum, node) =>
        sum +
        [
          ...callsBetween(
            before.find((b) => b.node === node.node),
            node,
          ).values(),
        ].reduce((a, b) => a + b, 0),
      0,
    );
}

/** What ran between two readings, per completion; `idleCommands` is the idle estimate for the window's length. */
export function commandsSince(
  before: CommandReading,
  after: CommandReading,
  { completions, idleCommands }: { completions: number; idleCommands: number },
): RedisCommands {
  const per = (n: number) => Number((n / Math.max(1, completions)).toFixed(2));
  const byName = new Map<string, number>();
  const nodes = after
    .filter((node) => node.master)
    .map((node) => {
      const previous = before.find((b) => b.node === node.node);
      let commands = 0;
      for (const [name, calls] of callsBetween(previous, node)) {
        byName.set(name, (byName.get(name) ?? 0) + calls);
        commands += calls;
      }
      return { node: node.node, commands, cpuMs: node.cpuMs - (previous?.cpuMs ?? 0) };
    });
  const total = nodes.reduce((sum, node) => sum + node.commands, 0);
  const shares = nodes.map((node) => ({
    node: node.node,
    commands: node.commands,
    share: Number((node.commands / Math.max(1, total)).toFixed(3)),
    cpuMsPerCompletion: Number((node.cpuMs / Math.max(1, completions)).toFixed(3)),
  }));
  const byCommand = Object.fromEntries([...byName.entries()].sort((a, b) => b[1] - a[1]).map(([name, calls]) => [name, per(calls)]));
  return {
    completions,
    perCompletion: per(total),
    byCommand,
    nodes: shares,
    maxShare: Math.max(0, ...shares.map((s) => s.share)),
    idlePerCompletion: per(idleCommands),
  };
}

/**
 * Counts the servers' commands while `load` runs (it answers its completions): first an idle second,
 * to estimate what runs anyway, then the window itself.
 */
export async function countCommands(nodes: string[], load: () => Promise<number>): Promise<RedisCommands> {
  const idleFrom = await readCommands(nodes);
  const idleStarted = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const before = await readCommands(nodes);
  const idleRatePerMs = commandsBetween(idleFrom, before) / Math.max(1, Date.now() - idleStarted);
  const started = Date.now();
  const completions = await load();
  const after = await readCommands(nodes);
  return commandsSince(before, after, { completions, idleCommands: idleRatePerMs * (Date.now() - started) });
}
