import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (CLK_TCK, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU time used so far by each watched component, in ms. */
export type CpuSnapshot = Record<string, number>;

/** utime + stime of one process, in ms; 0 when it is gone. */
function processCpuMs(pid: number | string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: fields are counted after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** The pids a process started (its children), as /proc lists them per thread. */
export function childPids(pid: number | string): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) => readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean));
  } catch {
    return [];
  }
}

/** CPU of a process and of every live process below it, in ms (a supervisor and its children). */
export function processTreeCpuMs(pid: number | string): number {
  return processCpuMs(pid) + childPids(pid).reduce((sum, child) => sum + processTreeCpuMs(child), 0);
}

function commandName(pid: string): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  } catch {
    return '';
  }
}

/** A PostgreSQL backend names its database in its title: `postgres: <user> <database> <host>(<port>) <state>`. */
function backendDatabase(pid: string): string | null {
  try {
    const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    const match = /^postgres: \S+ (\S+) \S+\(\d+\)/.exec(title);
    return match?.[1] ?? null;
  } catch {
    return null;
  }
}

/**
 * CPU so far of each process of the shared services, by pid: Redis, and PostgreSQL's own processes and
 * the backends of `database` (other databases' backends belong to someone else's work).
 */
export function sharedServiceCpu(database?: string): Record<string, Map<string, number>> {
  const out = { redis: new Map<string, number>(), postgres: new Map<string, number>() };
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const name = commandName(pid);
    if (name === 'redis-server') out.redis.set(pid, processCpuMs(pid));
    if (name !== 'postgres') continue;
    const db = backendDatabase(pid);
    if (db === null || database === undefined || db === database) out.postgres.set(pid, processCpuMs(pid));
  }
  return out;
}

/** CPU used between two per-pid readings: processes that ended meanwhile are left out, new ones count whole. */
export function cpuDelta(before: Map<string, number>, after: Map<string, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** Busy CPU time of the whole machine, in ms (all cores added up). */
function machineBusyMs(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
  return (((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 1000) / TICKS_PER_SECOND;
}

interface Reading {
  own: CpuSnapshot;
  shared: Record<string, Map<string, number>>;
}

/** Watches the benchmark's own processes, Redis, the benchmark database's PostgreSQL, and the machine. */
export class CpuMeter {
  constructor(
    private readonly pids: () => Record<string, number | undefined>,
    private readonly database?: string,
  ) {}

  read(): Reading {
    const own: CpuSnapshot = {};
    for (const [name, pid] of Object.entries(this.pids())) if (pid) own[name] = processTreeCpuMs(pid);
    const usage = process.cpuUsage();
    own['load generator'] = (usage.user + usage.system) / 1000;
    own.machine = machineBusyMs();
    return { own, shared: sharedServiceCpu(this.database) };
  }

  /** CPU used between two readings, per component, in ms. */
  static since(before: Reading, after: Reading): CpuSnapshot {
    const own = Object.fromEntries(Object.keys(after.own).map((name) => [name, (after.own[name] ?? 0) - (before.own[name] ?? 0)]));
    const shared = Object.fromEntries(
      Object.keys(after.shared).map((name) => [name, cpuDelta(before.shared[name] ?? new Map(), after.shared[name] ?? new Map())]),
    );
    return { ...own, ...shared };
  }
}
