import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

function readTable(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The local TCP ports of each socket inode, from /proc/net/tcp and tcp6 (`127.0.0.1:41234` → inode). */
function localPortsByInode(): Map<string, number> {
  const out = new Map<string, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readTable(table).split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1];
      const inode = fields[9];
      if (!local || !inode || inode === '0') continue;
      out.set(inode, parseInt(local.slice(local.lastIndexOf(':') + 1), 16));
    }
  }
  return out;
}

/** The socket inodes a process holds open. */
function socketInodes(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        return match?.[1] ? [match[1]] : [];
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

/**
 * Which of `owners` holds each local TCP port: a connection to Redis is known there by the client's
 * address, and this says which process (and so which role) it belongs to.
 */
export function portOwners<T>(owners: Map<number, T>): Map<number, T> {
  const ports = localPortsByInode();
  const out = new Map<number, T>();
  for (const [pid, owner] of owners) {
    for (const inode of socketInodes(pid)) {
      const port = ports.get(inode);
      if (port !== undefined) out.set(port, owner);
    }
  }
  return out;
}
