import { STALL_LIMIT_MS } from './faults/hostile-text';
import type { Row } from './row';

/**
 * What the service must achieve, as an explicit list: `npm run reliability` exits non-zero when one is
 * missed (unless `--report-only`). The figure is read from the row; null means the row did not measure it.
 */
export interface Target {
  fault: string;
  /** What must hold, as printed. */
  rule: string;
  read(row: Row): number | null;
  met(value: number): boolean;
  /**
   * The check of the short run (CI), where it differs: a figure that sits at its goal on a quiet 2-core
   * machine but swings with the machine's load in 60-second rows is held there to what still tells a
   * regression apart. The full run always checks `met`.
   */
  short?: { rule: string; met(value: number): boolean };
}

const zero = (value: number) => value === 0;
const atLeastOne = (value: number) => value >= 1;
const unanswered = (row: Row) => row.sent - row.answered;
const notOk = (row: Row) => row.sent - row.ok;
const other = (name: string) => (row: Row) => row.other[name] ?? null;

const transientRows = ['transient 500', 'transient 429', 'transient reset'];
const everyRow = [
  '500',
  '429',
  'reset',
  ...transientRows,
  'hang',
  'cut stream',
  'dead primary',
  'worker kill -9',
  'API kill -9',
  'privacy switch',
  'fuzz',
  'long word',
  'hostile text',
  'hostile file',
  'ownership and edges',
  'cluster failover',
];

/** Issue 22: a master of a Redis Cluster killed under load is a pause, not an error storm, and loses no work. */
const CLUSTER_TARGETS: Target[] = [
  ['500 answers = 0 (503 while failing over)', '500 answers'],
  ['503 answers without Retry-After = 0', '503 without Retry-After'],
  ['503 answers not coded service_unavailable = 0', '503 not service_unavailable'],
  ['requests not answered within the client patience = 0', 'not answered'],
  ['streams that ended twice = 0', 'answered twice'],
  ['requests called upstream more than once = 0', 'requests called upstream more than once'],
  ['batch lines not in the output exactly once = 0', 'batch lines not answered exactly once'],
  ['batch lines not called upstream exactly once = 0', 'batch lines not called upstream exactly once'],
  ['async job finished before the kill not readable with its answer after it = 0', 'async job not readable after the fault'],
  ['service processes that exited = 0', 'service processes exited'],
].map(([rule = '', figure = '']) => ({ fault: 'cluster failover', rule, read: other(figure), met: zero }));

export const TARGETS: Target[] = [
  // The fault happened at all: without these, a row that sent nothing or hit nobody would meet every target below.
  ...everyRow.map((fault) => ({ fault, rule: 'requests sent ≥ 1', read: (row: Row) => row.sent, met: atLeastOne })),
  { fault: 'worker kill -9', rule: 'jobs held by the killed worker ≥ 1', read: other('jobs held by the killed worker'), met: atLeastOne },
  { fault: 'API kill -9', rule: 'streams in flight at the killed API ≥ 1', read: other('in flight at the killed API'), met: atLeastOne },
  { fault: 'privacy switch', rule: 'requests sent after the switch ≥ 1', read: other('sent after the switch'), met: atLeastOne },
  { fault: 'fuzz', rule: 'completions accepted (their logs checked) ≥ 1', read: other('accepted completions'), met: atLeastOne },
  {
    fault: 'cluster failover',
    rule: 'requests sent between the kill and the replica taking over ≥ 1',
    read: other('sent during the failover'),
    met: atLeastOne,
  },
  { fault: 'cluster failover', rule: 'batch lines still to run at the kill ≥ 1', read: other('batch lines left at the kill'), met: atLeastOne },
  { fault: 'cluster failover', rule: "the killed master's replica took over", read: other('replica took over'), met: atLeastOne },
  ...everyRow.map((fault) => ({ fault, rule: 'lost logs = 0', read: (row: Row) => row.lostLogs, met: zero })),
  ...['500', '429', 'reset', ...transientRows].map((fault) => ({ fault, rule: 'every request answered 200 in full (sent − ok = 0)', read: notOk, met: zero })),
  // One retry per request answers it: a breaker or a spent retry budget must not take that retry away, nor add more.
  ...transientRows.map((fault) => ({ fault, rule: 'upstream calls/request ≤ 2.1', read: (row: Row) => row.callsPerRequest, met: (v: number) => v <= 2.1 })),
  { fault: 'cut stream', rule: 'every request answered (sent − answered = 0)', read: unanswered, met: zero },
  { fault: 'hang', rule: 'every request answered within the client patience (sent − answered = 0)', read: unanswered, met: zero },
  { fault: 'dead primary', rule: 'upstream calls/request ≤ 1.2', read: (row) => row.callsPerRequest, met: (v) => v <= 1.2 },
  { fault: 'dead primary', rule: 'every request answered 200 in full (sent − ok = 0)', read: notOk, met: zero },
  {
    fault: 'worker kill -9',
    rule: 'held jobs answered ≤ 5 s after the kill beyond their own duration',
    read: other('max wait after kill s'),
    met: (v) => v <= 5,
  },
  { fault: 'worker kill -9', rule: 'no job answered twice by the upstream', read: other('duplicate upstream answers'), met: zero },
  { fault: 'worker kill -9', rule: 'every request answered (sent − answered = 0)', read: unanswered, met: zero },
  { fault: 'privacy switch', rule: 'rows stored in full after the switch = 0', read: other('stored in full after the switch'), met: zero },
  { fault: 'privacy switch', rule: 'non-GDPR calls after the switch = 0', read: other('non-GDPR calls after the switch'), met: zero },
  { fault: 'privacy switch', rule: 'Redis keys holding level-3 text after the jobs = 0', read: other('Redis keys with level-3 text'), met: zero },
  { fault: 'fuzz', rule: '5xx = 0', read: (row) => row.fiveXx, met: zero },
  { fault: 'hostile file', rule: 'worker processes died = 0', read: other('worker processes died'), met: zero },
  { fault: 'hostile file', rule: 'every completion answered 200 in full (sent − ok = 0)', read: notOk, met: zero },
  {
    fault: 'hostile file',
    rule: 'files not ready/failed (with the reason) as expected within 60 s = 0',
    read: (row) => (row.other['files not settled in 60 s'] ?? 0) + (row.other['files not ending as expected'] ?? 0),
    met: zero,
  },
  { fault: 'fuzz', rule: 'error bodies outside {"error": {...}} = 0', read: other('non-error bodies'), met: zero },
  { fault: 'long word', rule: '900 KiB single-word completions answered 200 ≥ 1', read: other('long words answered 200'), met: atLeastOne },
  {
    fault: 'long word',
    rule: 'ordinary p99 beside long words ≤ 2× their idle p99',
    read: other('loaded p99 / idle p99'),
    met: (v) => v <= 2,
    // Measured 1.7-2.8 in short runs on the 2-core machine, highest when it is quietest (the idle tail shrinks); the quadratic path this guards against gave hundreds.
    short: { rule: 'ordinary p99 beside long words ≤ 4× their idle p99 (short run; the full run holds 2×)', met: (v) => v <= 4 },
  },
  { fault: 'long word', rule: 'every ordinary completion answered 200 in full', read: other('ordinary not answered 200 in full'), met: zero },
  {
    fault: 'hostile text',
    rule: 'API CPU per 100 KB of hostile text ≤ 10 ms',
    read: other('API ms per 100 KB (max)'),
    met: (v) => v <= 10,
    // The worst shape (30,000 tiny messages: JSON parse, input guard and zod for each message) measured 9.6 on a
    // quiet machine on 2026-11-26 (10.6 for the commit before issue 20) and 13.8 in CI's short run right after
    // the test suite, on shared cores; the quadratic paths this guards against gave seconds.
    short: { rule: 'API CPU per 100 KB of hostile text ≤ 20 ms (short run, after the tests on shared cores; the full run holds 10)', met: (v) => v <= 20 },
  },
  { fault: 'hostile text', rule: 'worker CPU per 100 KB of hostile text ≤ 10 ms', read: other('worker ms per 100 KB (max)'), met: (v) => v <= 10 },
  { fault: 'hostile text', rule: 'every hostile text answered 200 in full', read: notOk, met: zero },
  {
    fault: 'hostile text',
    rule: `no event-loop stall ≥ ${STALL_LIMIT_MS} ms in any process`,
    read: other('longest loop stall ms'),
    met: (v) => v < STALL_LIMIT_MS,
  },
  ...CLUSTER_TARGETS,
  { fault: 'cluster failover', rule: 'largest master share of the commands under load ≤ 45%', read: other('max master command share %'), met: (v) => v <= 45 },
  { fault: 'ownership and edges', rule: '5xx = 0', read: (row) => row.fiveXx, met: zero },
  {
    fault: 'ownership and edges',
    rule: 'every 6-way delete race answered one 200 and five 404',
    read: other('delete races not one 200 and five 404'),
    met: zero,
  },
  {
    fault: 'ownership and edges',
    rule: "another organization's ids answered exactly as unknown ones (404)",
    read: other('foreign ids not answered as unknown'),
    met: zero,
  },
  { fault: 'ownership and edges', rule: 'unknown fields refused with 400 on every API', read: other('unknown fields not refused 400'), met: zero },
  { fault: 'ownership and edges', rule: 'streams left mid-answer logged 499 on the log and its step', read: other('left streams not logged 499'), met: zero },
];

export interface Verdict {
  target: Target;
  /** null: the row did not run, failed, or did not measure the figure. */
  measured: number | null;
  met: boolean;
}

/** Each target against the rows that ran; a target whose row failed to run is not met. */
export function judge(rows: Row[], failedRows: string[], { short }: { short: boolean }): Verdict[] {
  return TARGETS.map((target) => (short && target.short ? { ...target, ...target.short } : target)).flatMap((target) => {
    const row = rows.find((r) => r.fault === target.fault);
    if (!row) return failedRows.includes(target.fault) ? [{ target, measured: null, met: false }] : [];
    const measured = target.read(row);
    return [{ target, measured, met: measured === null ? true : target.met(measured) }];
  });
}
