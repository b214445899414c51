import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';

export interface LocalRedisCluster {
  nodes: { host: string; port: number }[];
  /** `host:port,…`, as REDIS_CLUSTER_NODES takes it. */
  nodesEnv: string;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function clusterState(port: number): string {
  const out = spawnSync('redis-cli', ['-p', String(port), 'cluster', 'info'], { encoding: 'utf8' });
  return /cluster_state:(\w+)/.exec(out.stdout ?? '')?.[1] ?? '';
}

/**
 * A throwaway three-node Redis Cluster on loopback ports (masters only, no persistence), its
 * configuration files in a temporary folder; `stop` kills the nodes and removes the folder.
 */
export async function startRedisCluster(): Promise<LocalRedisCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchyard-cluster-'));
  const ports = [await freePort(), await freePort(), await freePort()];
  const children: ChildProcess[] = ports.map((port) =>
    spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', path.join(dir, `nodes-${port}.conf`), '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' }),
  );
  const stop = async () => {
    for (const child of children) child.kill('SIGKILL');
    await sleep(50);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) {
      const deadline = Date.now() + 10_000;
      while (spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout?.trim() !== 'PONG') {
        if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not start`);
        await sleep(50);
      }
    }
    const create = spawnSync('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8' });
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
    const deadline = Date.now() + 20_000;
    while (!ports.every((port) => clusterState(port) === 'ok')) {
      if (Date.now() > deadline) throw new Error('the cluster did not reach cluster_state:ok');
      await sleep(100);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  const nodes = ports.map((port) => ({ host: '127.0.0.1', port }));
  return { nodes, nodesEnv: nodes.map((n) => `${n.host}:${n.port}`).join(','), stop };
}
