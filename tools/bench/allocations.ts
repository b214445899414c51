import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Role } from './process-roles';

/**
 * Bytes allocated per completion, by side, with `--allocations`: a far steadier figure than CPU on this
 * shared machine (the same code gave ±2% between runs where its CPU moved 25%), and the garbage
 * collector's work follows it. The sampler (allocation-sampler.cjs) costs CPU: read only the bytes of
 * such a run.
 */

/** The node arguments that load the sampler into a process. */
export const SAMPLER_ARGS = ['--require', path.join(__dirname, 'allocation-sampler.cjs')];

/**
 * The processes of `roles` that loaded the sampler (a floor's tsx runs an esbuild child, which did not,
 * and which SIGUSR2 would end).
 */
export function withSampler(roles: Map<number, Role>): Map<number, Role> {
  const sampler = SAMPLER_ARGS[1] ?? '';
  const loaded = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(sampler);
    } catch {
      return false;
    }
  };
  return new Map([...roles].filter(([pid]) => loaded(pid)));
}

/** Starts or stops sampling in each of these processes. */
export function toggleSampling(pids: Iterable<number>): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGUSR2');
    } catch {
      // A process that ended meanwhile has nothing to report.
    }
  }
}

interface ProfileNode {
  selfSize: number;
  children: ProfileNode[];
}

function bytesOf(node: ProfileNode): number {
  return node.children.reduce((sum, child) => sum + bytesOf(child), node.selfSize);
}

/** How many windows each sampled process has written: its next profile is `<pid>-<count + 1>`. */
const windowsOf = new Map<number, number>();

/** What each side allocated in a window: bytes, and promises created. */
export interface Allocated {
  bytes: Record<Role, number>;
  promises: Record<Role, number>;
}

/** Waits for each process's profile of the window just stopped (it writes after the stop), then sums its bytes and promises by side. */
export async function collectAllocations(dir: string, roles: Map<number, Role>): Promise<Allocated> {
  const out: Allocated = { bytes: { api: 0, worker: 0 }, promises: { api: 0, worker: 0 } };
  const deadline = Date.now() + 30_000;
  for (const [pid, role] of roles) {
    const window = (windowsOf.get(pid) ?? 0) + 1;
    windowsOf.set(pid, window);
    const file = path.join(dir, `${pid}-${window}.heapprofile`);
    while (!existsSync(file) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    if (!existsSync(file))
      throw new Error(`no allocation profile from process ${pid} (${role}) within 30 s (the folder holds: ${readdirSync(dir).join(', ') || 'nothing'})`);
    // The sampler renames a profile into place once written whole.
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { head?: ProfileNode; promises?: number; error?: string };
    if (!parsed.head) throw new Error(`process ${pid} could not sample its allocations: ${parsed.error ?? 'unreadable profile'}`);
    out.bytes[role] += bytesOf(parsed.head);
    out.promises[role] += parsed.promises ?? 0;
    rmSync(file);
  }
  return out;
}

/**
 * Runs `measure` with the sampler on in the processes of `roles` that loaded it, and answers what it gave
 * and what each side allocated meanwhile (null without `dir`, that is without --allocations).
 */
export async function allocationsDuring<T>(
  dir: string | null,
  roles: Map<number, Role>,
  measure: () => Promise<T>,
): Promise<{ value: T; allocated: Allocated | null }> {
  const sampled = dir ? withSampler(roles) : new Map<number, Role>();
  toggleSampling(sampled.keys());
  const value = await measure();
  toggleSampling(sampled.keys());
  return { value, allocated: dir && sampled.size > 0 ? await collectAllocations(dir, sampled) : null };
}

export interface AllocationRow {
  path: string;
  mode: string;
  concurrency: number;
  completions: number;
  /** Bytes per completion. */
  api: number;
  worker: number;
  /** Promises created per completion. */
  apiPromises: number;
  workerPromises: number;
}

/** The table of bytes per completion, with promises per completion when they were counted (`--promises`). */
export function allocationTable(rows: AllocationRow[], { promises }: { promises: boolean }): string {
  const kb = (bytes: number) => (bytes / 1024).toFixed(1);
  const extra = (row: AllocationRow) => (promises ? ` ${row.apiPromises.toFixed(1)} | ${row.workerPromises.toFixed(1)} |` : '');
  const lines = [
    `| path | mode | clients | completions | API KB per completion | worker KB per completion | both |${promises ? ' API promises per completion | worker promises per completion |' : ''}`,
    `| --- | --- | --- | --- | --- | --- | --- |${promises ? ' --- | --- |' : ''}`,
  ];
  for (const row of rows)
    lines.push(
      `| ${row.path} | ${row.mode} | ${row.concurrency} | ${row.completions} | ${kb(row.api)} | ${kb(row.worker)} | ${kb(row.api + row.worker)} |${extra(row)}`,
    );
  return lines.join('\n');
}
