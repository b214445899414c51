import type { BatchLines, Failover } from './cluster-failover-steps';
import { masterShares } from './cluster-failover-steps';
import { outageFigures } from './cluster-outage';
import type { Completion } from './completions';
import { trafficRow, type Row } from './row';
import type { TagCalls } from './upstream';
import type { AsyncJob, BatchState } from './work-clients';

/** Everything the cluster row measured, gathered before its stack is torn down. */
export interface ClusterFindings {
  /** The row's settings, as the first note. */
  setup: string;
  completions: Completion[];
  failover: Failover;
  /** Epoch ms the service counted as recovered (null: not within the cap, `recoveryCapMs` after the kill). */
  recoveredAt: number | null;
  recoveryCapMs: number;
  /** Upstream calls by tag, read once the batch ended. */
  byTag: Map<string, TagCalls>;
  /** Tags of the requests sent outside the traffic (the async job), whose calls are counted too. */
  otherTags: string[];
  batch: { state: BatchState | null; lines: BatchLines; count: number };
  job: { before: AsyncJob | null; after: (AsyncJob | null)[] };
  lostLogs: number;
  duplicateLogInserts: number;
  /** What the service logged at warn or above since the kill, most frequent first. */
  problems: string[];
  warmFailures: number;
  /** Service processes of the row that exited on their own (name and exit code or signal). */
  exited: string[];
}

const after = (at: number, killedAt: number) => Number(((at - killedAt) / 1000).toFixed(1));

const contentOf = (job: AsyncJob | null) => job?.response?.body.choices?.[0]?.message?.content ?? null;

/** The finished job answers the same, completed, through every API process. */
function jobKept({ before, after }: ClusterFindings['job']): boolean {
  return before?.status === 'completed' && after.length > 0 && after.every((job) => job?.status === 'completed' && contentOf(job) === contentOf(before));
}

/** The failed requests by what they got: how many, sent when around the kill (s), which kinds and APIs, whether the upstream had answered. */
function failureTimeline(completions: Completion[], killedAt: number, byTag: Map<string, TagCalls>): string[] {
  const kindOf = (c: Completion) => (c.answered ? (c.status === 200 ? '200 with an error event' : String(c.status)) : 'no answer');
  const groups = new Map<string, Completion[]>();
  for (const c of completions.filter((x) => !x.ok)) groups.set(kindOf(c), [...(groups.get(kindOf(c)) ?? []), c]);
  return [...groups.entries()].map(([kind, list]) => {
    const sentAt = list.map((c) => after(c.sentAt, killedAt));
    const count = (key: (c: Completion) => string) => [...new Set(list.map(key))].map((k) => `${k} ${list.filter((c) => key(c) === k).length}`).join(', ');
    const answeredUpstream = list.filter((c) => (byTag.get(c.tag)?.completed ?? 0) > 0).length;
    return `${kind} × ${list.length}: sent ${Math.min(...sentAt)} to ${Math.max(...sentAt)} s after the kill; ${count((c) => (c.stream ? 'streams' : 'JSON'))}; API ${count((c) => `:${new URL(c.api).port}`)}; upstream answered in full for ${answeredUpstream}`;
  });
}

/** Figures the targets read; every one is always present (a missing figure would pass its target unmeasured). */
function figures(f: ClusterFindings, doubled: string[]): Row['other'] {
  const { failover, completions } = f;
  const outage = outageFigures(completions, failover.killedAt);
  const failingUntil = failover.promotedAt ?? failover.killedAt + f.recoveryCapMs;
  return {
    '500 answers': outage.internalErrors,
    '503 answers': outage.byStatus['503'] ?? 0,
    '503 without Retry-After': outage.unavailableWithoutRetryAfter,
    '503 not service_unavailable': outage.unavailableOtherCode,
    '503 with a log id': outage.unavailableWithLogId,
    'not answered': outage.unanswered,
    'answered twice': outage.answeredTwice,
    'requests called upstream more than once': doubled.length,
    'duplicate log inserts logged': f.duplicateLogInserts,
    'sent during the failover': completions.filter((c) => c.sentAt >= failover.killedAt && c.sentAt <= failingUntil).length,
    'replica took over': failover.promotedAt === null ? 0 : 1,
    ...(failover.promotedAt === null ? {} : { 'replica master s': after(failover.promotedAt, failover.killedAt) }),
    ...(failover.clusterOkAt === null ? {} : { 'cluster ok s': after(failover.clusterOkAt, failover.killedAt) }),
    'failing window s': outage.failingSeconds,
    'longest answered wait s': outage.longestWaitSeconds,
    ...(outage.backTo2xxSeconds === null ? {} : { 'back to 2xx s after kill': outage.backTo2xxSeconds }),
    ...(f.recoveredAt === null ? {} : { 'recovered s after kill': after(f.recoveredAt, failover.killedAt) }),
    // Unread at the kill: counted as none left, so the "spans the kill" target says it is not shown.
    'batch lines left at the kill': failover.batchDoneAtKill === null ? 0 : f.batch.count - failover.batchDoneAtKill,
    'batch lines not answered exactly once': f.batch.lines.notExactlyOnce,
    'batch lines not called upstream exactly once': f.batch.lines.notCalledOnce,
    'async job not readable after the fault': jobKept(f.job) ? 0 : 1,
    'max master command share %': masterShares(failover).max,
    'service processes exited': f.exited.length,
  };
}

function notes(f: ClusterFindings, doubled: string[]): string[] {
  const { failover, batch, job } = f;
  const outage = outageFigures(f.completions, failover.killedAt);
  return [
    f.setup,
    `answers: ${Object.entries(outage.byStatus)
      .map(([kind, n]) => `${kind} × ${n}`)
      .join(', ')}`,
    `masters' command shares under load before the kill: ${masterShares(failover).text}`,
    `killed 127.0.0.1:${failover.victimPort}; its replica 127.0.0.1:${failover.replicaPort} ${failover.promotedAt === null ? 'did not take over' : 'took over'}`,
    f.recoveredAt === null
      ? `not recovered ${f.recoveryCapMs / 1000} s after the kill (the traffic stopped there)`
      : `recovered ${after(f.recoveredAt, failover.killedAt)} s after the kill`,
    ...(outage.backTo2xxSeconds === null ? ['not back to 2xx: the last request sent failed'] : []),
    `batch ${batch.state?.status ?? 'unread'} (${JSON.stringify(batch.state?.request_counts ?? null)}): ${batch.lines.text}`,
    ...(batch.lines.doubled.length > 0
      ? [
          `batch lines called twice (s after the kill): ${batch.lines.doubled.map((line) => `${line.customId} at ${line.calledAt.map((at) => after(at, failover.killedAt)).join(' and ')}`).join('; ')}`,
        ]
      : []),
    `async job ${job.before?.status ?? 'not created'} before the fault; after it: ${job.after.map((j) => j?.status ?? 'not readable').join(', ')}`,
    ...failureTimeline(f.completions, failover.killedAt, f.byTag),
    ...(doubled.length > 0 ? [`requests called upstream twice: ${doubled.slice(0, 5).join(', ')}`] : []),
    ...(f.warmFailures > 0 ? [`${f.warmFailures} of the 8 warm-up requests failed`] : []),
    ...(f.exited.length > 0 ? [`service processes that exited: ${f.exited.join(', ')}`] : []),
    `logged by the service since the kill: ${f.problems.join(' | ') || 'nothing at warn or above'}`,
  ];
}

export function clusterRow(fault: string, f: ClusterFindings): Row {
  const doubled = [...f.completions.map((c) => c.tag), ...f.otherTags].filter((tag) => (f.byTag.get(tag)?.calls ?? 0) > 1);
  const calls = f.completions.reduce((sum, c) => sum + (f.byTag.get(c.tag)?.calls ?? 0), 0);
  return trafficRow(fault, f.completions, {
    lostLogs: f.lostLogs,
    callsPerRequest: calls / Math.max(1, f.completions.length),
    other: figures(f, doubled),
    notes: notes(f, doubled),
  });
}
