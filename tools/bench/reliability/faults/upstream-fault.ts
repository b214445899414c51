import type { Behaviour } from '../../../../test/simulator/behaviour';
import type { Completion } from '../completions';
import { size, type Fault, type FaultContext } from '../fault';
import { trafficRow, type Row } from '../row';
import { runCount } from '../traffic';

/** A fault of the primary model, with a healthy fallback in the Space's failover chain. */
export interface UpstreamFaultSpec {
  name: string;
  summary: string;
  fault: Behaviour;
  /** Share of the primary's calls that show the fault (1: every call). */
  share: number;
  /** Requests sent, full and `--short`. */
  requests: [number, number];
  concurrency: number;
  /** Share of the requests that stream, spread evenly; the others ask for one JSON answer. */
  streamShare: number;
  /** The client's patience per request, in ms (full and `--short`). */
  timeoutMs: [number, number];
}

/** Stable per name, so every run scripts the same faults in the same order. */
const seedOf = (name: string) => [...name].reduce((hash, char) => (Math.imul(hash, 31) + char.charCodeAt(0)) >>> 0, 7);

/** Whether request `i` streams, so that `share` of them do, evenly spread. */
export const streams = (i: number, share: number) => Math.floor((i + 1) * share) > Math.floor(i * share);

export const tagPrefix = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-');

/** Upstream calls over requests for the given slice of the row's completions. */
export function callsPerRequest(ctx: FaultContext, completions: Completion[]): number {
  return completions.length === 0 ? 0 : ctx.upstream.callsFor(completions.map((c) => c.tag)) / completions.length;
}

export async function runUpstreamFault(ctx: FaultContext, spec: UpstreamFaultSpec): Promise<{ row: Row; completions: Completion[] }> {
  const space = await ctx.createSpace({
    row: spec.name,
    models: [
      { role: 'primary', quality: 0.9 },
      { role: 'fallback', quality: 0.5 },
    ],
    chain: ['fallback'],
  });
  const requests = size(ctx, ...spec.requests);
  const timeoutMs = size(ctx, ...spec.timeoutMs);
  // More scripted calls than any retry policy could make; past them the primary answers normally.
  ctx.upstream.scriptFaults(space.upstreamName.primary ?? '', { fault: spec.fault, share: spec.share, count: requests * 20, seed: seedOf(spec.name) });
  const client = ctx.client(space);
  const prefix = tagPrefix(spec.name);
  const completions = await runCount(requests, spec.concurrency, (i) =>
    client.complete(`${prefix}-${i}`, { stream: streams(i, spec.streamShare), timeoutMs, text: 'Say hello to the fault suite.' }),
  );
  const byTag = ctx.upstream.callsByTag();
  const primaryCalls = completions.reduce((sum, c) => sum + (byTag.get(c.tag)?.models.filter((m) => m === space.upstreamName.primary).length ?? 0), 0);
  const row = trafficRow(spec.name, completions, {
    lostLogs: await ctx.lostLogs(completions.map((c) => c.logId)),
    callsPerRequest: callsPerRequest(ctx, completions),
    other: { 'primary calls/req': Number((primaryCalls / Math.max(1, completions.length)).toFixed(2)) },
    notes: [
      `primary shows the fault on ${Math.round(spec.share * 100)}% of calls; fallback healthy, failover chain on; ${spec.concurrency} clients; patience ${timeoutMs / 1000} s`,
    ],
  });
  return { row, completions };
}

export function upstreamFault(spec: UpstreamFaultSpec): Fault {
  return { name: spec.name, summary: spec.summary, run: async (ctx) => (await runUpstreamFault(ctx, spec)).row };
}
