import type { CpuSnapshot } from './cpu';
import type { LoadResult } from './load';
import type { ProfileSummary } from './profile-summary';
import { round } from './stats';

/**
 * `baseline` is another commit of Switchyard, measured in the same run (`--baseline REF`); `floor` is the
 * queue floor (tools/bench/queue-floor), the least a gateway of Switchyard's shape does; `express-floor` the
 * same floor with its HTTP edge on Express 5; `required-floor` the Express floor doing also the work no
 * implementation of issue 20's configuration may leave out; `configured-floor` the required floor doing
 * also the rest of that configuration (key, validation, routing, breakers, metrics, costs), each the leanest way.
 */
export type Path = 'direct' | 'switchyard' | 'baseline' | 'portkey' | 'floor' | 'express-floor' | 'required-floor' | 'configured-floor';
export type Mode = 'json' | 'stream';

export interface Cell {
  path: Path;
  mode: Mode;
  concurrency: number;
  result: LoadResult;
  /** CPU used during the cell, per component, in ms. */
  cpuMs: CpuSnapshot;
  /** Completions/s of each stretch, in the order measured, when the cell was measured in parts (A-B-B-A, cells.ts). */
  stretchRps?: number[];
}

export interface Comparison {
  mode: Mode;
  concurrency: number;
  directRps: number;
  switchyardRps: number;
  /** Switchyard's p50 minus the direct p50, in ms; the ratio is Switchyard's over direct. */
  addedP50Ms: number;
  p50Ratio: number;
  addedP99Ms: number;
  p99Ratio: number;
  addedTtftP50Ms: number | null;
  ttftP50Ratio: number | null;
}

export function compare(cells: Cell[]): Comparison[] {
  const out: Comparison[] = [];
  for (const through of cells.filter((c) => c.path === 'switchyard')) {
    const direct = cells.find((c) => c.path === 'direct' && c.mode === through.mode && c.concurrency === through.concurrency);
    if (!direct) continue;
    const [d, s] = [direct.result, through.result];
    out.push({
      mode: through.mode,
      concurrency: through.concurrency,
      directRps: round(d.rps, 1),
      switchyardRps: round(s.rps, 1),
      addedP50Ms: round(s.latency.p50 - d.latency.p50),
      p50Ratio: round(s.latency.p50 / d.latency.p50, 2),
      addedP99Ms: round(s.latency.p99 - d.latency.p99),
      p99Ratio: round(s.latency.p99 / d.latency.p99, 2),
      addedTtftP50Ms: s.ttft && d.ttft ? round(s.ttft.p50 - d.ttft.p50) : null,
      ttftP50Ratio: s.ttft && d.ttft ? round(s.ttft.p50 / d.ttft.p50, 2) : null,
    });
  }
  return out;
}

/** The working tree against the baseline commit, cell by cell: what a change costs or saves. */
export interface BaselineComparison {
  mode: Mode;
  concurrency: number;
  baselineRps: number;
  switchyardRps: number;
  /** Switchyard's req/s over the baseline's. */
  rpsRatio: number;
  baselineP50Ms: number;
  switchyardP50Ms: number;
  /** Switchyard's p50 minus the baseline's, in ms (negative: faster). */
  p50DeltaMs: number;
  p99DeltaMs: number;
  ttftP50DeltaMs: number | null;
}

/**
 * One path against another of the same run, cell by cell: Switchyard against the baseline commit or the
 * peer gateway (`portkey`), or the queue floor against the peer.
 */
export function compareWithBaseline(cells: Cell[], other: Path = 'baseline', subject: Path = 'switchyard'): BaselineComparison[] {
  const out: BaselineComparison[] = [];
  for (const through of cells.filter((c) => c.path === subject)) {
    const before = cells.find((c) => c.path === other && c.mode === through.mode && c.concurrency === through.concurrency);
    if (!before) continue;
    const [b, s] = [before.result, through.result];
    out.push({
      mode: through.mode,
      concurrency: through.concurrency,
      baselineRps: round(b.rps, 1),
      switchyardRps: round(s.rps, 1),
      rpsRatio: round(s.rps / b.rps, 2),
      baselineP50Ms: round(b.latency.p50),
      switchyardP50Ms: round(s.latency.p50),
      p50DeltaMs: round(s.latency.p50 - b.latency.p50),
      p99DeltaMs: round(s.latency.p99 - b.latency.p99),
      ttftP50DeltaMs: s.ttft && b.ttft ? round(s.ttft.p50 - b.ttft.p50) : null,
    });
  }
  return out;
}

const ms = (value: number | undefined | null) => (value === undefined || value === null || !Number.isFinite(value) ? '–' : value.toFixed(2));

export function table(header: string[], rows: (string | number)[][]): string {
  const lines = [header, header.map(() => '---'), ...rows.map((r) => r.map(String))];
  return lines.map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

export function cellsTable(cells: Cell[]): string {
  return table(
    ['path', 'mode', 'clients', 'completions', 'errors', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'TTFT p50 ms', 'TTFT p99 ms'],
    cells.map((c) => [
      c.path,
      c.mode,
      c.concurrency,
      c.result.requests,
      c.result.errors,
      c.result.rps.toFixed(0),
      ms(c.result.latency.p50),
      ms(c.result.latency.p90),
      ms(c.result.latency.p99),
      ms(c.result.ttft?.p50),
      ms(c.result.ttft?.p99),
    ]),
  );
}

export function comparisonTable(comparisons: Comparison[]): string {
  return table(
    ['mode', 'clients', 'direct req/s', 'Switchyard req/s', 'added p50 ms', 'p50 ratio', 'added p99 ms', 'p99 ratio', 'added TTFT p50 ms', 'TTFT ratio'],
    comparisons.map((c) => [
      c.mode,
      c.concurrency,
      c.directRps.toFixed(0),
      c.switchyardRps.toFixed(0),
      ms(c.addedP50Ms),
      `${c.p50Ratio}×`,
      ms(c.addedP99Ms),
      `${c.p99Ratio}×`,
      ms(c.addedTtftP50Ms),
      c.ttftP50Ratio === null ? '–' : `${c.ttftP50Ratio}×`,
    ]),
  );
}

const percentOfMachine = (cpuMs: number, wallMs: number, cores: number) => `${((cpuMs / wallMs / cores) * 100).toFixed(0)}%`;

/** Busy CPU of the machine not spent by the benchmark's processes, Redis or PostgreSQL: someone else's load, in ms. */
export function otherCpuMs(cell: Cell): number {
  const own = Object.entries(cell.cpuMs)
    .filter(([name]) => name !== 'machine')
    .reduce((sum, [, ms]) => sum + ms, 0);
  return Math.max(0, (cell.cpuMs.machine ?? 0) - own);
}

/** CPU per completion of each component, in ms, and the machine's load (of its cores added up). */
export function cpuTable(cells: Cell[], cores: number): string {
  const names = [...new Set(cells.flatMap((c) => Object.keys(c.cpuMs)))].filter((n) => n !== 'machine');
  return table(
    ['path', 'mode', 'clients', ...names.map((n) => `${n} ms/req`), 'machine busy', 'other processes'],
    cells.map((c) => [
      c.path,
      c.mode,
      c.concurrency,
      ...names.map((n) => ((c.cpuMs[n] ?? 0) / Math.max(1, c.result.requests)).toFixed(3)),
      percentOfMachine(c.cpuMs.machine ?? 0, c.result.wallMs, cores),
      percentOfMachine(otherCpuMs(c), c.result.wallMs, cores),
    ]),
  );
}

export function profileTables(summaries: ProfileSummary[]): string {
  return summaries
    .map((s) =>
      [
        `#### ${s.process}: ${s.busyMs.toFixed(0)} ms of CPU sampled`,
        table(
          ['area', 'self ms', 'share'],
          s.byArea.slice(0, 12).map((a) => [a.name, a.ms.toFixed(0), `${(a.share * 100).toFixed(1)}%`]),
        ),
        '',
        table(
          ['function', 'self ms', 'share'],
          s.topFunctions.slice(0, 15).map((f) => [`\`${f.name}\``, f.ms.toFixed(0), `${(f.share * 100).toFixed(1)}%`]),
        ),
        '',
        table(
          ['nearest project caller', 'self ms below it', 'share'],
          s.byProjectCaller.slice(0, 15).map((f) => [`\`${f.name}\``, f.ms.toFixed(0), `${(f.share * 100).toFixed(1)}%`]),
        ),
      ].join('\n'),
    )
    .join('\n\n');
}

export function baselineTable(comparisons: BaselineComparison[], label: { other: string; now: string } = { other: 'baseline', now: 'now' }): string {
  const { other, now } = label;
  return table(
    [
      'mode',
      'clients',
      `${other} req/s`,
      `${now} req/s`,
      'req/s ratio',
      `${other} p50 ms`,
      `${now} p50 ms`,
      'p50 change ms',
      'p99 change ms',
      'TTFT p50 change ms',
    ],
    comparisons.map((c) => [
      c.mode,
      c.concurrency,
      c.baselineRps.toFixed(0),
      c.switchyardRps.toFixed(0),
      `${c.rpsRatio}×`,
      ms(c.baselineP50Ms),
      ms(c.switchyardP50Ms),
      ms(c.p50DeltaMs),
      ms(c.p99DeltaMs),
      ms(c.ttftP50DeltaMs),
    ]),
  );
}
