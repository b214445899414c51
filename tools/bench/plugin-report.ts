import type { CpuSnapshot } from './cpu';
import type { LoadResult } from './load';
import type { RoundTrips } from './round-trips';
import { table } from './report';

/** One measured cell of `bench:plugins`. */
export interface PluginCell {
  /** `floor`: tools/bench/plugin-floor.ts, the least a gateway does for such a completion, in place of Switchyard. */
  scenario: 'floor' | 'queue-floor' | 'plugins' | 'saturated';
  concurrency: number;
  /** PLUGIN_CONCURRENCY_SEARXNG of the cell. */
  searxngLimit: number;
  backendLatencyMs: number;
  /** Completions/s if only the slowest backend (and its limit) counted: min(clients, limit) ÷ latency. */
  idealRps: number;
  /** The latency of that ideal: one backend call, plus the queue for a slot when the limit is below the clients. */
  idealLatencyMs: number;
  result: LoadResult;
  cpuMs: CpuSnapshot;
  /** Redis commands and PostgreSQL transactions per completion. */
  roundTrips: RoundTrips;
  /** With --allocations: bytes each side allocated and promises it created, per completion (a floor of one process counts as the API). */
  allocations?: { api: number; worker: number; apiPromises?: number; workerPromises?: number };
}

interface Answer {
  metadata?: { extra?: { plugins?: { id: string; status: string; error?: string }[] }; search_results?: { items?: unknown[] } };
}

const EXPECTED = ['web-search', 'space-search'];

/** A completion passes when both plugins ran ok and their results reached `metadata.search_results`. */
export function checkPluginAnswer(body: string): string | null {
  let answer: Answer;
  try {
    answer = JSON.parse(body) as Answer;
  } catch {
    return 'body is not JSON';
  }
  const plugins = answer.metadata?.extra?.plugins ?? [];
  for (const id of EXPECTED) {
    const run = plugins.find((p) => p.id === id);
    if (!run) return `${id} did not run`;
    if (run.status !== 'ok') return `${id} ${run.status}: ${run.error ?? ''}`.slice(0, 200);
  }
  // web-search gives 5 results; space-search must add some of its own.
  if ((answer.metadata?.search_results?.items?.length ?? 0) <= 5) return 'space-search found nothing';
  return null;
}

const perCompletion = (cell: PluginCell, ...names: string[]) =>
  names.some((name) => cell.cpuMs[name] !== undefined)
    ? (names.reduce((sum, name) => sum + (cell.cpuMs[name] ?? 0), 0) / Math.max(1, cell.result.requests)).toFixed(2)
    : '—';

/** The benchmark's own processes: the model and plugin simulators and the load generator. */
export const HARNESS = ['upstream', 'plugin backends', 'load generator'];

export function pluginCellsTable(cells: PluginCell[], cores: number): string {
  return table(
    ['cell', 'clients', 'SearXNG limit', 'completions/s', 'ideal/s', 'of ideal', 'p50 ms', 'p99 ms', 'ideal ms', 'p99 ÷ ideal', 'failed', 'API (floor) ms CPU/compl.', 'worker ms CPU/compl.', 'PostgreSQL', 'Redis', 'simulators + load', 'machine busy', 'Redis cmds/compl.', 'PG xacts/compl.'],
    cells.map((c) => [
      c.scenario,
      c.concurrency,
      c.searxngLimit,
      c.result.rps.toFixed(1),
      c.idealRps.toFixed(0),
      `${((c.result.rps / c.idealRps) * 100).toFixed(1)}%`,
      c.result.latency.p50.toFixed(1),
      c.result.latency.p99.toFixed(1),
      c.idealLatencyMs.toFixed(0),
      `${(c.result.latency.p99 / c.idealLatencyMs).toFixed(2)}×`,
      c.result.errors,
      perCompletion(c, 'api'),
      perCompletion(c, ...Object.keys(c.cpuMs).filter((name) => name === 'worker' || name.startsWith('worker '))),
      perCompletion(c, 'postgres'),
      perCompletion(c, 'redis'),
      perCompletion(c, ...HARNESS),
      `${(((c.cpuMs.machine ?? 0) / c.result.wallMs / cores) * 100).toFixed(0)}%`,
      c.roundTrips.redisTotalPerCompletion.toFixed(1),
      c.roundTrips.pgTransactionsPerCompletion.toFixed(1),
    ]),
  );
}
