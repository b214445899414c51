import { readFileSync } from 'node:fs';
import { childPids } from './cpu';
import type { Managed } from './processes';

/** The side of a completion a process works on. */
export type Role = 'api' | 'worker';

function roleFromEnvironment(pid: number): Role | 'other' | null {
  try {
    const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    const role = env.find((entry) => entry.startsWith('SWITCHYARD_ROLE='))?.slice('SWITCHYARD_ROLE='.length);
    if (role === 'api') return 'api';
    if (role === 'workers') return 'worker';
    return role === undefined ? null : 'other';
  } catch {
    return null;
  }
}

function allPids(pid: number): number[] {
  return [pid, ...childPids(pid).flatMap((child) => allPids(Number(child)))];
}

/**
 * The role of every process of a deployment or a floor: a Switchyard process says it in SWITCHYARD_ROLE
 * (a supervisor's `all` is neither side); a floor's processes by their names (`floor api`, `floor worker`).
 */
export function processRoles(processes: Managed[]): Map<number, Role> {
  const out = new Map<number, Role>();
  for (const managed of processes) {
    if (!managed.child.pid) continue;
    for (const pid of allPids(managed.child.pid)) {
      const role = roleFromEnvironment(pid) ?? (/\bapi\b/.test(managed.name) ? 'api' : /\bworker/.test(managed.name) ? 'worker' : 'other');
      if (role !== 'other') out.set(pid, role);
    }
  }
  return out;
}
