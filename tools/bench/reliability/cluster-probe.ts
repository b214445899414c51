import IORedis from 'ioredis';
import type { ClusterNode } from '../../../test/helpers/redis-cluster';

/** One line of `CLUSTER NODES`, as far as the cluster row needs it. */
export interface NodeRole {
  id: string;
  port: number;
  role: 'master' | 'replica';
  /** The master's node id, for a replica. */
  masterId: string | null;
  /** Flagged `fail` or `pfail` by the node asked. */
  failing: boolean;
  /** Holds at least one slot (a master serving keys). */
  servesSlots: boolean;
}

/** `CLUSTER NODES` text, parsed: `<id> <ip:port@cport> <flags> <master> <ping> <pong> <epoch> <link> <slots…>`. */
export function parseClusterNodes(text: string): NodeRole[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [id = '', address = '', flags = '', master = '-', , , , , ...slots] = line.trim().split(' ');
      const flagList = flags.split(',');
      return {
        id,
        port: Number(/:(\d+)/.exec(address)?.[1] ?? 0),
        role: flagList.includes('master') ? ('master' as const) : ('replica' as const),
        masterId: master === '-' ? null : master,
        failing: flagList.includes('fail') || flagList.includes('fail?'),
        servesSlots: slots.length > 0,
      };
    });
}

/**
 * Plain connections (not a cluster client) to each node of the cluster, to read what each node itself
 * says: its command counter, its view of the cluster. They never retry: a dead node answers with an error.
 */
export class ClusterProbe {
  private readonly connections = new Map<number, IORedis>();

  constructor(nodes: ClusterNode[]) {
    for (const node of nodes) {
      const connection = new IORedis({
        host: node.host,
        port: node.port,
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
        retryStrategy: () => null,
        connectTimeout: 1000,
      });
      // A killed node's connection errors: that is the fault, read through the commands' rejections.
      connection.on('error', () => undefined);
      this.connections.set(node.port, connection);
    }
  }

  async connect(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.connect()));
  }

  private connection(port: number): IORedis {
    const connection = this.connections.get(port);
    if (!connection) throw new Error(`no probe connection to port ${port}`);
    return connection;
  }

  /** The roles as `port` sees them. */
  async roles(port: number): Promise<NodeRole[]> {
    return parseClusterNodes(String(await this.connection(port).call('CLUSTER', 'NODES')));
  }

  async clusterState(port: number): Promise<string> {
    return /cluster_state:(\w+)/.exec(String(await this.connection(port).call('CLUSTER', 'INFO')))?.[1] ?? '';
  }

  /** `total_commands_processed` of each of these nodes (INFO stats), by port. */
  async commandCounts(ports: number[]): Promise<Map<number, number>> {
    const counts = await Promise.all(
      ports.map(async (port) => [port, Number(/total_commands_processed:(\d+)/.exec(await this.connection(port).info('stats'))?.[1] ?? NaN)] as const),
    );
    return new Map(counts);
  }

  /** Whether the node now calls itself a master (INFO replication). */
  async isMaster(port: number): Promise<boolean> {
    return (await this.connection(port).info('replication')).includes('role:master');
  }

  /** Stops using a node's connection (before it is killed, so nothing waits on it). */
  forget(port: number): void {
    this.connections.get(port)?.disconnect();
    this.connections.delete(port);
  }

  close(): void {
    for (const connection of this.connections.values()) connection.disconnect();
    this.connections.clear();
  }
}
