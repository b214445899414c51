import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';

export interface ClusterNode {
  host: string;
  port: number;
}

export interface LocalRedisCluster {
  /** Every node; which are masters and replicas is the cluster's to say (`CLUSTER NODES`), and changes on failover. */
  nodes: ClusterNode[];
  /** `host:port,…`, as REDIS_CLUSTER_NODES takes it. */
  nodesEnv: string;
  /** SIGKILL of one node (as when its machine dies); resolves with the epoch ms of the kill once it is gone. */
  killNode(port: number): Promise<number>;
  stop(): Promise<void>;
}

export interface RedisClusterOptions {
  /** 3 unless given (Redis Cluster's least). */
  masters?: number;
  /** 0 unless given: masters only. */
  replicasPerMaster?: number;
  /**
   * `cluster-node-timeout` in ms: how long a node may be unreachable before it is failing and its replica
   * takes over. Redis's default (15 s) unless given.
   */
  nodeTimeoutMs?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function cli(port: number, ...args: string[]): string {
  return spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).stdout ?? '';
}

const clusterState = (port: number) => /cluster_state:(\w+)/.exec(cli(port, 'cluster', 'info'))?.[1] ?? '';

/** Every replica has its master link up: it holds the master's data and can take over. */
function replicasAttached(ports: number[], replicas: number): boolean {
  const linked = ports.filter((port) => /role:slave[\s\S]*master_link_status:up/.test(cli(port, 'info', 'replication')));
  return linked.length === replicas;
}

async function waitFor(what: string, ready: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** Resolves when the process is gone, or after 5 s (a process that never started sends no 'exit'). */
function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * A throwaway Redis Cluster on loopback ports (no persistence), its configuration files in a temporary
 * folder; `stop` kills the nodes and removes the folder. Three masters and no replicas unless told
 * otherwise; it resolves once every replica is attached and every node sees `cluster_state:ok`.
 */
export async function startRedisCluster({ masters = 3, replicasPerMaster = 0, nodeTimeoutMs }: RedisClusterOptions = {}): Promise<LocalRedisCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchyard-cluster-'));
  const count = masters * (1 + replicasPerMaster);
  const ports: number[] = [];
  for (let i = 0; i < count; i += 1) ports.push(await freePort());
  const timeout = nodeTimeoutMs === undefined ? [] : ['--cluster-node-timeout', String(nodeTimeoutMs)];
  const children = new Map<number, ChildProcess>(
    ports.map((port) => [
      port,
      spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          path.join(dir, `nodes-${port}.conf`),
          ...timeout,
          '--save',
          '',
          '--appendonly',
          'no',
          '--dir',
          dir,
        ],
        { stdio: 'ignore' },
      ),
    ]),
  );
  // A redis-server that cannot start is reported by the PING wait below, not as an unhandled 'error' event.
  for (const child of children.values()) child.on('error', () => undefined);
  const stop = async () => {
    await Promise.all(
      [...children.values()].map((child) => {
        child.kill('SIGKILL');
        return exited(child);
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  const killNode = async (port: number) => {
    const child = children.get(port);
    if (!child) throw new Error(`no node of this cluster on port ${port}`);
    const at = Date.now();
    child.kill('SIGKILL');
    await exited(child);
    return at;
  };
  try {
    for (const port of ports) await waitFor(`redis-server on ${port} answered no PING`, () => cli(port, 'ping').trim() === 'PONG', 10_000);
    const create = spawnSync(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', String(replicasPerMaster), '--cluster-yes'],
      { encoding: 'utf8' },
    );
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
    await waitFor('the replicas did not all attach to their masters', () => replicasAttached(ports, masters * replicasPerMaster), 30_000);
    await waitFor('the cluster did not reach cluster_state:ok', () => ports.every((port) => clusterState(port) === 'ok'), 20_000);
  } catch (err) {
    await stop();
    throw err;
  }
  const nodes = ports.map((port) => ({ host: '127.0.0.1', port }));
  return { nodes, nodesEnv: nodes.map((n) => `${n.host}:${n.port}`).join(','), killNode, stop };
}
