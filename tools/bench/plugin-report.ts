import type { CpuSnapshot } from './cpu';
import type { LoadResult, LoadTarget } from './load';
import type { RoundTrips } from './round-trips';
import { table } from './report';

/** One measured cell of `bench:plugins`. */
export interface PluginCell {
  /**
   * `floor`: tools/bench/plugin-floor.ts, the least a gateway does for such a completion, in place of Switchyard;
   * `queue-floor`: tools/bench/queue-floor behind a queue, one embeddings call standing in for space-search;
   * `plugin-floor`: the queue floor's API and tools/bench/plugin-floor-worker.ts, the plugins' work done as Switchyard does it.
   */
  scenario: 'floor' | 'queue-floor' | 'plugin-floor' | 'plugins' | 'saturated';
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
  /** `metadata.search_results.items` of one answer of the cell, taken before its warm-up: what the plugins found. */
  sources?: unknown[];
  /** With --allocations: bytes each side allocated and promises it created, per completion (a floor of one process counts as the API). */
  allocations?: { api: number; worker: number; apiPromises?: number; workerPromises?: number };
}

interface Answer {
  metadata?: { extra?: { plugins?: { id: string; status: string; error?: string }[] }; search_results?: { items?: unknown[] } };
}

/** One answer's `metadata.search_results.items`, to compare what the cells' plugins found. */
export async function sampleSources(t: LoadTarget): Promise<unknown[]> {
  const res = await fetch(t.url, { method: 'POST', headers: { ...t.headers, 'content-type': 'application/json' }, body: JSON.stringify(t.body) });
  const answer = (await res.json()) as { metadata?: { search_results?: { items?: unknown[] } } };
  return answer.metadata?.search_results?.items ?? [];
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

/**
 * Where two cells' sources differ (the first item that does), or null when they are the same: the plugin
 * floor must find what Switchyard finds, rank it the same and cut the same snippets.
 */
export function sourcesDiffer(a: PluginCell, b: PluginCell): string | null {
  const left = a.sources ?? [];
  const right = b.sources ?? [];
  if (left.length !== right.length) return `${a.scenario} gave ${left.length} sources, ${b.scenario} ${right.length}`;
  for (let i = 0; i < left.length; i += 1) {
    const [x, y] = [JSON.stringify(left[i]), JSON.stringify(right[i])];
    if (x !== y) return `source ${i + 1}: ${a.scenario} ${x} against ${b.scenario} ${y}`;
  }
  return null;
}

const perCompletion = (cell: PluginCell, ...names: string[]) =>
  names.some((name) => cell.cpuMs[name] !== undefined)
    ? (names.reduce((sum, name) => sum + (cell.cpuMs[name] ?? 0), 0) / Math.max(1, cell.result.requests)).toFixed(2)
    : '—';

/** The benchmark's own processes: the model and plugin simulators and the load generator. */
export const HARNESS = ['upstream', 'plugin backends', 'load generator'];

const workerNames = (cell: PluginCell) => Object.keys(cell.cpuMs).filter((name) => name === 'worker' || name.startsWith('worker '));

/** ms of CPU per completion of the cell's own processes (API, workers), Redis and the benchmark database's PostgreSQL. */
export function oursCpuPerCompletion(cell: PluginCell): number {
  const names = ['api', ...workerNames(cell), 'postgres', 'redis'];
  return names.reduce((sum, name) => sum + (cell.cpuMs[name] ?? 0), 0) / Math.max(1, cell.result.requests);
}

/** Issue 34 §2's goals, Switchyard's unsaturated cell against the plugin floor in the same run. */
const GOALS = { throughput: 0.85, cpu: 1.3 };

/**
 * Switchyard's unsaturated cell against each floor of the run, as ratios: completions/s, p99 and CPU
 * per completion (ours + Redis + PostgreSQL), with issue 34's goals against the plugin floor.
 */
export function pluginRatiosTable(cells: PluginCell[]): string {
  const switchyard = cells.find((c) => c.scenario === 'plugins');
  const floors = cells.filter((c) => c.scenario === 'floor' || c.scenario === 'queue-floor' || c.scenario === 'plugin-floor');
  if (!switchyard || floors.length === 0) return '';
  const verdict = (pass: boolean) => (pass ? 'PASS' : 'MISS');
  return table(
    ['Switchyard ÷', 'completions/s', 'p99', 'CPU/compl. (ours + Redis + PG)', 'goal (plugin floor)'],
    floors.map((floor) => {
      const rps = switchyard.result.rps / floor.result.rps;
      const cpu = oursCpuPerCompletion(switchyard) / oursCpuPerCompletion(floor);
      const goal =
        floor.scenario === 'plugin-floor'
          ? `throughput ≥ ${GOALS.throughput}×: ${verdict(rps >= GOALS.throughput)}; CPU ≤ ${GOALS.cpu}×: ${verdict(cpu <= GOALS.cpu)}`
          : '—';
      return [floor.scenario, `${rps.toFixed(2)}×`, `${(switchyard.result.latency.p99 / floor.result.latency.p99).toFixed(2)}×`, `${cpu.toFixed(2)}×`, goal];
    }),
  );
}

export function pluginCellsTable(cells: PluginCell[], cores: number): string {
  return table(
    [
      'cell',
      'clients',
      'SearXNG limit',
      'completions/s',
      'ideal/s',
      'of ideal',
      'p50 ms',
      'p99 ms',
      'ideal ms',
      'p99 ÷ ideal',
      'failed',
      'API (floor) ms CPU/compl.',
      'worker ms CPU/compl.',
      'PostgreSQL',
      'Redis',
      'ours + Redis + PG',
      'simulators + load',
      'machine busy',
      'Redis cmds/compl.',
      'PG xacts/compl.',
    ],
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
      perCompletion(c, ...workerNames(c)),
      perCompletion(c, 'postgres'),
      perCompletion(c, 'redis'),
      oursCpuPerCompletion(c).toFixed(2),
      perCompletion(c, ...HARNESS),
      `${(((c.cpuMs.machine ?? 0) / c.result.wallMs / cores) * 100).toFixed(0)}%`,
      c.roundTrips.redisTotalPerCompletion.toFixed(1),
      c.roundTrips.pgTransactionsPerCompletion.toFixed(1),
    ]),
  );
}
