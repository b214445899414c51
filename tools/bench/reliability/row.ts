import { distribution } from '../stats';
import type { Completion } from './completions';

/** One line of the table: what a fault did to the requests sent through it. */
export interface Row {
  fault: string;
  sent: number;
  /** Complete HTTP answers: any status, or a stream that ended normally. */
  answered: number;
  /** 200 with a whole completion (for fuzz: any answer below 500 in the `{"error": {...}}` shape, or 2xx). */
  ok: number;
  fiveXx: number;
  /** Accepted requests (`x-switchyard-log-id` received) with no log row after the grace period; null where not measured. */
  lostLogs: number | null;
  /** Upstream calls counted at the simulator divided by requests sent; null where no upstream is involved. */
  callsPerRequest: number | null;
  /** Latency of the answered requests, in ms. */
  p50Ms: number | null;
  p99Ms: number | null;
  /** Figures only this row has, by name (e.g. rows stored in full, wait after kill). */
  other: Record<string, number>;
  /** What the figures do not say by themselves (error samples, setup). */
  notes: string[];
}

const finiteOrNull = (value: number) => (Number.isFinite(value) ? Number(value.toFixed(1)) : null);

/** What a failed completion ended with: the transport error, or the status and the start of the body (a stream's last event). */
function failureOf(c: Completion): string {
  if (c.status === null || !c.complete) return c.error ?? 'no answer';
  const lastEvent = c.stream ? c.body.trimEnd().split('\n\n').at(-1) : undefined;
  const text = (lastEvent ?? c.body).replace(/"id":"[^"]*",?/g, '').replace(/\s+/g, ' ');
  return `HTTP ${c.status} ${c.stream && c.status === 200 ? 'stream ended with ' : ''}${text.slice(0, 140)}`;
}

/** A few distinct failure descriptions, for the notes. */
export function failureSamples(completions: Completion[], limit = 3): string[] {
  const failures = completions.filter((c) => !c.ok).map(failureOf);
  const counts = new Map<string, number>();
  for (const failure of failures) counts.set(failure, (counts.get(failure) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([text, n]) => `${n}× ${text}`);
}

/** The columns every traffic row shares, from what the clients saw. */
export function trafficRow(
  fault: string,
  completions: Completion[],
  extra: Pick<Row, 'lostLogs' | 'callsPerRequest'> & Partial<Pick<Row, 'other' | 'notes'>>,
): Row {
  const answered = completions.filter((c) => c.answered);
  const latency = distribution(answered.map((c) => c.latencyMs));
  return {
    fault,
    sent: completions.length,
    answered: answered.length,
    ok: completions.filter((c) => c.ok).length,
    fiveXx: completions.filter((c) => c.status !== null && c.status >= 500).length,
    lostLogs: extra.lostLogs,
    callsPerRequest: extra.callsPerRequest === null ? null : Number(extra.callsPerRequest.toFixed(2)),
    p50Ms: finiteOrNull(latency.p50),
    p99Ms: finiteOrNull(latency.p99),
    other: extra.other ?? {},
    notes: [...(extra.notes ?? []), ...failureSamples(completions)],
  };
}
