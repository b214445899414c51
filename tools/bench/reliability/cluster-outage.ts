import type { Completion } from './completions';

/** What the clients saw of a failover, from their completions alone (no I/O). */
export interface OutageFigures {
  /** Answers by kind: `200`, `200 stream error event`, other statuses by number, `no answer`. */
  byStatus: Record<string, number>;
  /** 500 answers: an internal error where the service should have said it is unavailable. */
  internalErrors: number;
  /** Answers of 503 without `Retry-After`, and 503s whose code is not `service_unavailable`. */
  unavailableWithoutRetryAfter: number;
  unavailableOtherCode: number;
  /** Answers of 503 that carried `x-switchyard-log-id`: an accepted request must get a log, a refused one gets none. */
  unavailableWithLogId: number;
  /** Requests with no complete answer within the client's patience (refused, reset, cut or timed out). */
  unanswered: number;
  /** Streams that ended twice: more than one `[DONE]` or error event. */
  answeredTwice: number;
  /** From the first failed answer to the last, in s (0: none failed). */
  failingSeconds: number;
  /** The longest a request sent after the kill waited for a complete answer of any status, in s: the stall a failover costs. */
  longestWaitSeconds: number;
  /**
   * From the kill to the first request of the unbroken run of successes that ends the traffic, in s:
   * every request sent from then on succeeded. Null when the last request failed (not recovered).
   */
  backTo2xxSeconds: number | null;
}

/** The terminal events of a stream: `data: [DONE]` and `data: {"error"…}` lines. */
function terminalEvents(body: string): number {
  return (body.match(/^data: \[DONE\]/gm)?.length ?? 0) + (body.match(/^data: \{"error"/gm)?.length ?? 0);
}

function kindOf(c: Completion): string {
  if (!c.answered) return 'no answer';
  if (c.status === 200 && !c.ok) return c.stream ? '200 stream error event' : '200 not a completion';
  return String(c.status);
}

const codeOf = (body: string): string | undefined => {
  try {
    return (JSON.parse(body) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
};

const seconds = (ms: number) => Number((ms / 1000).toFixed(1));

export function outageFigures(completions: Completion[], killedAt: number): OutageFigures {
  const byStatus: Record<string, number> = {};
  for (const c of completions) byStatus[kindOf(c)] = (byStatus[kindOf(c)] ?? 0) + 1;
  const unavailable = completions.filter((c) => c.status === 503);
  const failed = completions.filter((c) => !c.ok);
  const failedEnds = failed.map((c) => c.endedAt);
  const bySending = [...completions].sort((a, b) => a.sentAt - b.sentAt);
  let firstOfLastRun: Completion | null = null;
  for (let i = bySending.length - 1; i >= 0 && bySending[i]?.ok; i -= 1) firstOfLastRun = bySending[i] ?? null;
  return {
    byStatus,
    internalErrors: completions.filter((c) => c.status === 500).length,
    unavailableWithoutRetryAfter: unavailable.filter((c) => c.headers['retry-after'] === undefined).length,
    unavailableOtherCode: unavailable.filter((c) => codeOf(c.body) !== 'service_unavailable').length,
    unavailableWithLogId: unavailable.filter((c) => c.logId !== null).length,
    unanswered: completions.filter((c) => !c.answered).length,
    answeredTwice: completions.filter((c) => c.stream && terminalEvents(c.body) > 1).length,
    longestWaitSeconds: seconds(Math.max(0, ...completions.filter((c) => c.answered && c.sentAt >= killedAt).map((c) => c.latencyMs))),
    failingSeconds: failed.length === 0 ? 0 : seconds(Math.max(...failedEnds) - Math.min(...failedEnds)),
    backTo2xxSeconds: firstOfLastRun === null ? null : failed.length === 0 ? 0 : seconds(Math.max(0, firstOfLastRun.sentAt - killedAt)),
  };
}

/** A request of the traffic: when it was sent, and its completion once it ended. */
export interface SentRequest {
  sentAt: number;
  result: Completion | null;
}

/** When the service counts as recovered after a failover (ms, and a least count). */
export interface RecoveryRule {
  /** Time after the replica took over before recovery is judged at all. */
  settleMs: number;
  /** The requests sent over a stretch this long are judged… */
  windowMs: number;
  /** …a stretch that ended this long ago: each had this long to answer (the model answers in 100 ms), and unanswered counts as failed. */
  graceMs: number;
  /** Judged requests needed: too few means the clients are stuck, not that the service is well. */
  least: number;
}

/** Whether every request sent over the rule's stretch (since the promotion) answered ok, and enough of them. */
export function recovered(sent: SentRequest[], rule: RecoveryRule, { promotedAt, now }: { promotedAt: number | null; now: number }): boolean {
  if (promotedAt === null || now - promotedAt < rule.settleMs) return false;
  const until = now - rule.graceMs;
  const judged = sent.filter((request) => request.sentAt >= Math.max(promotedAt, until - rule.windowMs) && request.sentAt <= until);
  return judged.length >= rule.least && judged.every((request) => request.result?.ok === true);
}
