import { allocationsDuring, type Allocated, type AllocationRow } from './allocations';
import { CpuMeter, type CpuSnapshot } from './cpu';
import type { Deployment } from './deployment';
import { FLOOR_PATHS } from './floors';
import { collectLoad, mergeLoads, runLoad, type LoadClient, type LoadSamples, type LoadTarget } from './load';
import { targetFor, type Endpoints } from './path-targets';
import { processRoles } from './process-roles';
import type { Window } from './profile-summary';
import type { QueueFloor } from './queue-floor/start';
import { otherCpuMs, type Cell, type Mode, type Path } from './report';
import type { ProfiledCell } from './stage-budget';

/** The grid of cells and how each is measured (`npm run bench`'s options). */
export interface CellSettings {
  durationMs: number;
  warmupMs: number;
  /** Seconds' worth, in ms, each path but direct runs at 64 clients before the first cell (0: none). */
  firstMs: number;
  modes: Mode[];
  levels: number[];
  client: LoadClient;
  /** Switchyard then the baseline, each whole, in every cell (the order before issue 22): only to show the order's bias. */
  fixedOrder: boolean;
  /** Stretches of each side of a same-run comparison per cell (2: A-B-B-A). */
  stretches: number;
  say: (text: string) => void;
}

/** What the cells run against. */
export interface CellStack {
  endpoints: Endpoints;
  paths: Path[];
  deployments: Deployment[];
  floors: QueueFloor[];
  /** Where the allocation sampler writes (--allocations), or null. */
  allocationDir: string | null;
}

export interface CellsOutcome {
  cells: Cell[];
  /** Completions sent through Switchyard and the baseline, warm-ups included (each log is checked). */
  sentThrough: number;
  /** Switchyard's measured stretches, for its CPU profiles. */
  windows: Window[];
  profiled: Record<'switchyard' | 'baseline', ProfiledCell[]>;
  allocations: AllocationRow[];
}

/** One measured stretch of a path: a cell is one, or several for each side of a same-run comparison. */
interface Segment {
  part: LoadSamples;
  warmRequests: number;
  window: Window;
  cpuMs: CpuSnapshot;
  allocated: Allocated | null;
}

const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const isDeployment = (kind: Path): kind is 'switchyard' | 'baseline' => kind === 'switchyard' || kind === 'baseline';
const TIMEOUT_MS = 30_000;

/**
 * The order of a cell's measured stretches. Direct, the peer and the floors once each. With a baseline,
 * Switchyard and the baseline in `stretches` stretches each, in pairs that swap their order (A-B-B-A with
 * two, A-B-B-A-A-B with three), starting with B in odd cells: measured whole and always in the same order,
 * the first of the two came out 4–22% slower with the same code on both sides (an A/A run, RESULTS.md,
 * issue 21), so neither side may always go first. More stretches spread a burst of someone else's load
 * on this shared machine over both sides.
 */
export function segmentOrder(
  paths: Path[],
  { cellIndex, fixedOrder, stretches }: { cellIndex: number; fixedOrder: boolean; stretches: number },
): { path: Path; share: number }[] {
  const deployments = paths.filter(isDeployment);
  const others = paths.filter((kind) => !isDeployment(kind)).map((kind) => ({ path: kind, share: 1 }));
  if (deployments.length < 2 || fixedOrder) return [...others, ...deployments.map((kind) => ({ path: kind, share: 1 }))];
  const [a, b] = cellIndex % 2 === 0 ? deployments : [...deployments].reverse();
  if (!a || !b) return others;
  const count = Math.max(1, Math.round(stretches));
  const pairs = Array.from({ length: count }, (_, i) => (i % 2 === 0 ? [a, b] : [b, a])).flat();
  return [...others, ...pairs.map((kind) => ({ path: kind, share: 1 / count }))];
}

function sumCpu(parts: CpuSnapshot[]): CpuSnapshot {
  const out: CpuSnapshot = {};
  for (const part of parts) for (const [name, ms] of Object.entries(part)) out[name] = (out[name] ?? 0) + ms;
  return out;
}

function sumAllocated(parts: (Allocated | null)[]): Allocated | null {
  const present = parts.filter((part): part is Allocated => part !== null);
  if (present.length === 0) return null;
  const out: Allocated = { bytes: { api: 0, worker: 0 }, promises: { api: 0, worker: 0 } };
  for (const part of present) {
    for (const side of ['api', 'worker'] as const) {
      out.bytes[side] += part.bytes[side];
      out.promises[side] += part.promises[side];
    }
  }
  return out;
}

/**
 * Runs the cells: each mode at each concurrency, every path back to back (so all see the same machine
 * state), each stretch after its own warm-up, with the CPU of every process read around it.
 */
export async function runCells(stack: CellStack, meter: CpuMeter, settings: CellSettings): Promise<CellsOutcome> {
  const { endpoints, paths } = stack;
  const { client, say } = settings;
  const out: CellsOutcome = { cells: [], sentThrough: stack.deployments.length, windows: [], profiled: { switchyard: [], baseline: [] }, allocations: [] };
  // With --allocations: the processes of each sampled path.
  const sampledProcesses = (kind: Path) =>
    [...stack.deployments.filter((d) => d.path === kind), ...stack.floors.filter((f) => FLOOR_PATHS[f.kind] === kind)].flatMap((owner) => owner.processes);
  // Every path but direct runs each mode at 64 clients first: otherwise the first cell (1 client, a few hundred
  // requests) measures V8 still compiling the code of the path, and a larger service pays longer for it.
  for (const pathKind of settings.firstMs > 0 ? paths.filter((kind) => kind !== 'direct') : []) {
    for (const mode of settings.modes) {
      const warm = await runLoad(targetFor(pathKind, mode, endpoints), {
        concurrency: 64,
        durationMs: settings.firstMs / settings.modes.length,
        maxRequests: 1_000_000,
        timeoutMs: TIMEOUT_MS,
        client,
      });
      if (isDeployment(pathKind)) out.sentThrough += warm.requests;
    }
  }
  const measure = async (target: LoadTarget, pathKind: Path, { concurrency, durationMs }: { concurrency: number; durationMs: number }): Promise<Segment> => {
    const warm = await runLoad(target, { concurrency, durationMs: settings.warmupMs, maxRequests: 1_000_000, timeoutMs: TIMEOUT_MS, client });
    const before = meter.read();
    const from = nowUs();
    const roles = stack.allocationDir ? processRoles(sampledProcesses(pathKind)) : new Map<number, 'api' | 'worker'>();
    const { value: part, allocated } = await allocationsDuring(stack.allocationDir, roles, () =>
      collectLoad(target, { concurrency, durationMs, maxRequests: 1_000_000, timeoutMs: TIMEOUT_MS, client }),
    );
    return { part, warmRequests: warm.requests, window: [from, nowUs()], cpuMs: CpuMeter.since(before, meter.read()), allocated };
  };
  let cellIndex = 0;
  for (const mode of settings.modes) {
    for (const concurrency of settings.levels) {
      const segments = new Map<Path, Segment[]>();
      for (const { path: pathKind, share } of segmentOrder(paths, { cellIndex, fixedOrder: settings.fixedOrder, stretches: settings.stretches })) {
        const segment = await measure(targetFor(pathKind, mode, endpoints), pathKind, { concurrency, durationMs: settings.durationMs * share });
        segments.set(pathKind, [...(segments.get(pathKind) ?? []), segment]);
      }
      cellIndex += 1;
      for (const pathKind of paths)
        record(out, {
          pathKind,
          mode,
          concurrency,
          segments: segments.get(pathKind) ?? [],
          processNames: stack.deployments.find((d) => d.path === pathKind)?.processes.map((p) => p.name) ?? [],
          say,
        });
    }
  }
  return out;
}

const rpsOf = (part: LoadSamples) => part.samples.filter((sample) => sample.ok).length / (part.wallMs / 1000);

/** Adds a path's cell, merged from its stretches, to the outcome, and prints its line. */
function record(
  out: CellsOutcome,
  cell: { pathKind: Path; mode: Mode; concurrency: number; segments: Segment[]; processNames: string[]; say: (text: string) => void },
): void {
  const { pathKind, mode, concurrency, segments, say } = cell;
  const result = mergeLoads(segments.map((s) => s.part));
  const cpuMs = sumCpu(segments.map((s) => s.cpuMs));
  const windows = segments.map((s) => s.window);
  const allocated = sumAllocated(segments.map((s) => s.allocated));
  if (allocated) {
    const per = (side: number) => side / Math.max(1, result.requests);
    const { bytes, promises } = allocated;
    out.allocations.push({
      path: pathKind,
      mode,
      concurrency,
      completions: result.requests,
      api: per(bytes.api),
      worker: per(bytes.worker),
      apiPromises: per(promises.api),
      workerPromises: per(promises.worker),
    });
  }
  if (pathKind === 'switchyard') out.windows.push(...windows);
  if (isDeployment(pathKind)) {
    const ownMs = cell.processNames.reduce((sum, name) => sum + (cpuMs[name] ?? 0), 0);
    out.profiled[pathKind].push({
      label: `${mode} c=${concurrency}`,
      windows,
      completions: result.requests,
      measuredMsPerCompletion: ownMs / Math.max(1, result.requests),
    });
    out.sentThrough += segments.reduce((sum, s) => sum + s.warmRequests + s.part.samples.filter((sample) => sample.ok).length, 0);
  }
  const stretchRps = segments.length > 1 ? segments.map((s) => Number(rpsOf(s.part).toFixed(1))) : undefined;
  const measured: Cell = { path: pathKind, mode, concurrency, result, cpuMs, ...(stretchRps ? { stretchRps } : {}) };
  out.cells.push(measured);
  const other = otherCpuMs(measured);
  if (other / result.wallMs > 0.2)
    say(`  (other processes used ${((other / result.wallMs) * 100).toFixed(0)}% of a core during this cell: numbers are skewed)`);
  const errors = result.errors > 0 ? `, ${result.errors} errors (${result.errorSamples.join('; ')})` : '';
  const halves = stretchRps ? ` (stretches in the order measured: ${stretchRps.map((rps) => rps.toFixed(0)).join(', ')} req/s)` : '';
  say(
    `  ${pathKind.padEnd(10)} ${mode.padEnd(6)} c=${String(concurrency).padEnd(3)} ${result.rps.toFixed(0).padStart(6)} req/s  p50 ${result.latency.p50.toFixed(2)} ms  p99 ${result.latency.p99.toFixed(2)} ms${result.ttft ? `  TTFT p50 ${result.ttft.p50.toFixed(2)} ms` : ''}${errors}${halves}`,
  );
}
