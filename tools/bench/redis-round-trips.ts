import { connect, type Socket } from 'node:net';
import { commandsSince, readCommands } from './redis-commands';
import { portOwners } from './socket-owners';
import type { Role } from './process-roles';

/** Redis commands sent per completion by each side, and which commands they were. */
export interface RoundTripsBySide {
  completions: number;
  api: number;
  worker: number;
  /** Commands per completion by side and name, most frequent first (e.g. `worker evalsha` 2). */
  commands: Record<string, number>;
  /**
   * The servers' own count of commands per completion in the same window (INFO commandstats: a script's
   * commands each count; every client's, MONITOR's slowdown included), beside the round trips.
   */
  serverCommands?: number;
}

/**
 * Counts the Redis commands each process sends while something runs, with MONITOR: every command a
 * client sends is one round trip (a script is one, whatever it runs inside; a pipelined command still
 * counts as one, the figure is an upper bound of the trips). Commands are assigned to processes by the
 * client's address, through /proc. MONITOR slows Redis down: count in a window of its own, never while a
 * cell is measured.
 */
export class RedisRoundTripCounter {
  private readonly bySource = new Map<string, Map<string, number>>();
  private monitors: Socket[] = [];

  /** One server's URL, or each master of a cluster (a MONITOR on each). */
  constructor(private readonly redisUrls: string[]) {}

  /**
   * Opens a bare connection in MONITOR mode to each server (ioredis switches its state a microtask after
   * MONITOR's OK, and takes monitor lines that arrive in the same read for replies: on a busy Redis it fails).
   */
  async start(): Promise<void> {
    await Promise.all(this.redisUrls.map((redisUrl) => this.monitor(redisUrl)));
  }

  private async monitor(redisUrl: string): Promise<void> {
    const url = new URL(redisUrl);
    const socket = connect({ host: url.hostname, port: Number(url.port || 6379) });
    socket.setEncoding('utf8');
    this.monitors.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.once('connect', () => {
        const auth = url.password ? `AUTH ${url.username ? `${decodeURIComponent(url.username)} ` : ''}${decodeURIComponent(url.password)}\r\n` : '';
        socket.write(`${auth}MONITOR\r\n`);
        resolve();
      });
    });
    socket.on('error', () => undefined);
    let partial = '';
    socket.on('data', (text: string) => {
      const lines = (partial + text).split('\r\n');
      partial = lines.pop() ?? '';
      this.read(lines);
    });
  }

  /** MONITOR lines: `+1700000000.123456 [0 127.0.0.1:41234] "evalsha" "…"`, or `[0 lua]` for what a script runs. */
  private read(lines: string[]): void {
    for (const line of lines) {
      const open = line.indexOf('[');
      const close = line.indexOf(']', open);
      if (!line.startsWith('+') || open === -1 || close === -1) continue;
      const source = line.slice(line.indexOf(' ', open) + 1, close);
      if (source === 'lua') continue;
      const quote = line.indexOf('"', close);
      const name = line.slice(quote + 1, line.indexOf('"', quote + 1)).toLowerCase();
      const counts = this.bySource.get(source) ?? new Map<string, number>();
      counts.set(name, (counts.get(name) ?? 0) + 1);
      this.bySource.set(source, counts);
    }
  }

  /** Stops counting and answers the commands per completion of the processes in `roles`. */
  stop(roles: Map<number, Role>, completions: number): RoundTripsBySide {
    for (const socket of this.monitors) socket.destroy();
    this.monitors = [];
    const owners = portOwners(roles);
    const per = (n: number) => Number((n / Math.max(1, completions)).toFixed(2));
    const totals = { api: 0, worker: 0 };
    const commands = new Map<string, number>();
    for (const [source, counts] of this.bySource) {
      const role = owners.get(Number(source.slice(source.lastIndexOf(':') + 1)));
      if (!role) continue;
      for (const [name, calls] of counts) {
        totals[role] += calls;
        commands.set(`${role} ${name}`, (commands.get(`${role} ${name}`) ?? 0) + calls);
      }
    }
    const sorted = [...commands.entries()].sort((a, b) => b[1] - a[1]).map(([name, calls]) => [name, per(calls)] as const);
    return { completions, api: per(totals.api), worker: per(totals.worker), commands: Object.fromEntries(sorted) };
  }
}

/**
 * Runs `load` with the counter on and answers the commands per completion of the processes in `roles`,
 * and the servers' own count of the window (`redisUrls`: one server, or each master of a cluster).
 * The load should be short and light (MONITOR is costly): a few hundred completions at a few clients.
 */
export async function countRoundTrips(redisUrls: string[], roles: () => Map<number, Role>, load: () => Promise<number>): Promise<RoundTripsBySide> {
  const counter = new RedisRoundTripCounter(redisUrls);
  const before = await readCommands(redisUrls);
  await counter.start();
  try {
    const completions = await load();
    // The roles are read while every connection is still open.
    const trips = counter.stop(roles(), completions);
    const after = await readCommands(redisUrls);
    return { ...trips, serverCommands: commandsSince(before, after, { completions, idleCommands: 0 }).perCompletion };
  } catch (err) {
    counter.stop(new Map(), 0);
    throw err;
  }
}
