import type { ClusterStack } from './cluster-stack';
import { sleep } from './traffic';
import type { Upstream } from './upstream';
import type { BatchState } from './work-clients';

/** What happened to the cluster: whom the row killed, when, and when the cluster had healed. */
export interface Failover {
  victimPort: number;
  replicaPort: number;
  /** Commands each master ran during the load before the kill (INFO stats, by port). */
  commands: Map<number, number>;
  /** Batch lines completed when the kill came (null: the batch could not be read). */
  batchDoneAtKill: number | null;
  /** Epoch ms of the kill; of the replica calling itself master; of every surviving node saying `cluster_state:ok` after that. */
  killedAt: number;
  promotedAt: number | null;
  clusterOkAt: number | null;
}

export interface KillOptions {
  /** Load before the kill, in ms: the window the masters' commands are counted over. */
  loadMs: number;
  /** Reads the batch's progress just before the kill. */
  batchDoneAtKill(): Promise<number | null>;
  /** How long to wait for the replica and for `cluster_state:ok`, in ms after the kill. */
  promotionTimeoutMs: number;
}

const orFalse = <T>(promise: Promise<T>, fallback: T) => promise.catch(() => fallback);

/**
 * Counts each master's commands over `loadMs` of the traffic already running, SIGKILLs the master that
 * ran the most (the one holding the service's keys, if they sit in one slot), and waits for its replica to
 * take over and for the surviving nodes to see the cluster whole again.
 */
export async function killBusiestMaster({ cluster, probe }: ClusterStack, options: KillOptions): Promise<Failover> {
  const anyPort = cluster.nodes[0]?.port ?? 0;
  const roles = await probe.roles(anyPort);
  const masters = roles.filter((node) => node.role === 'master' && node.servesSlots);
  const ports = masters.map((node) => node.port);
  const before = await probe.commandCounts(ports);
  await sleep(options.loadMs);
  const after = await probe.commandCounts(ports);
  const commands = new Map(ports.map((port) => [port, (after.get(port) ?? 0) - (before.get(port) ?? 0)]));
  const victim = [...masters].sort((a, b) => (commands.get(b.port) ?? 0) - (commands.get(a.port) ?? 0))[0];
  const replica = roles.find((node) => node.masterId === victim?.id);
  if (!victim || !replica) throw new Error(`no master with a replica to kill in:\n${JSON.stringify(roles)}`);
  const batchDoneAtKill = await options.batchDoneAtKill();
  probe.forget(victim.port);
  const killedAt = await cluster.killNode(victim.port);
  const survivors = cluster.nodes.map((node) => node.port).filter((port) => port !== victim.port);
  let promotedAt: number | null = null;
  let clusterOkAt: number | null = null;
  while (Date.now() < killedAt + options.promotionTimeoutMs && clusterOkAt === null) {
    if (promotedAt === null && (await orFalse(probe.isMaster(replica.port), false))) promotedAt = Date.now();
    if (promotedAt !== null) {
      const states = await Promise.all(survivors.map((port) => orFalse(probe.clusterState(port), '')));
      if (states.every((state) => state === 'ok')) clusterOkAt = Date.now();
    }
    await sleep(100);
  }
  return { victimPort: victim.port, replicaPort: replica.port, commands, batchDoneAtKill, killedAt, promotedAt, clusterOkAt };
}

/** Each master's share of the commands counted before the kill: the largest (in %), and all of them for the notes. */
export function masterShares({ commands, victimPort }: Failover): { max: number; text: string } {
  const total = [...commands.values()].reduce((sum, n) => sum + n, 0);
  const share = (n: number) => (total === 0 ? 0 : Number(((100 * n) / total).toFixed(1)));
  const text = [...commands.entries()].map(([port, n]) => `:${port} ${share(n)}% (${n})${port === victimPort ? ' killed' : ''}`).join(', ');
  return { max: share(Math.max(0, ...commands.values())), text };
}

export interface BatchLines {
  /** Lines (of `count`) whose custom_id the output file does not hold exactly once. */
  notExactlyOnce: number;
  /** Lines the upstream was not called for exactly once (never, or twice or more). */
  notCalledOnce: number;
  /** The lines the upstream was called for twice or more, with the epoch ms of each call. */
  doubled: { customId: string; calledAt: number[] }[];
  text: string;
}

/** The batch's lines against its output and error files and against the calls the upstream saw. */
export function batchOutcome(
  upstream: Upstream,
  {
    batch,
    output,
    errors,
    count,
    tagOf,
  }: { batch: BatchState | null; output: { custom_id?: string }[]; errors: { custom_id?: string }[]; count: number; tagOf(i: number): string },
): BatchLines {
  const inOutput = new Map<string, number>();
  for (const line of output) inOutput.set(line.custom_id ?? '', (inOutput.get(line.custom_id ?? '') ?? 0) + 1);
  const byTag = upstream.callsByTag();
  const ids = Array.from({ length: count }, (_, i) => i);
  const missing = ids.filter((i) => !inOutput.has(`line-${i}`)).length;
  const doubled = ids.filter((i) => (inOutput.get(`line-${i}`) ?? 0) > 1).length;
  const neverCalled = ids.filter((i) => (byTag.get(tagOf(i))?.calls ?? 0) === 0).length;
  const calledTwice = ids.filter((i) => (byTag.get(tagOf(i))?.calls ?? 0) > 1).length;
  return {
    notExactlyOnce: missing + doubled,
    notCalledOnce: neverCalled + calledTwice,
    doubled: ids.filter((i) => (byTag.get(tagOf(i))?.calls ?? 0) > 1).map((i) => ({ customId: `line-${i}`, calledAt: byTag.get(tagOf(i))?.receivedAt ?? [] })),
    text: `${batch ? '' : 'never read; '}output lines ${output.length}, error lines ${errors.length}; missing from the output ${missing}, in it twice or more ${doubled}; upstream never called ${neverCalled}, called twice or more ${calledTwice}`,
  };
}
