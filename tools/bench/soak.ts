import { readFileSync, writeFileSync } from 'node:fs';
import { runLoad, type LoadClient, type LoadResult, type LoadTarget } from './load';
import type { Managed } from './processes';
import { processRoles, type Role } from './process-roles';
import { machineInfo } from './reliability/machine';
import { round } from './stats';
import { table } from './report';

/** Issue 20's limit on memory growth after warm-up, per process, in MB per minute. */
const LIMIT_MB_PER_MINUTE = 1;
const SAMPLE_EVERY_MS = 10_000;

export interface SoakOptions {
  json: LoadTarget;
  stream: LoadTarget;
  /** 64 clients in all, half of them streaming. */
  clients: number;
  /** Minutes measured after the warm-up. */
  minutes: number;
  /** Minutes of load before the measured ones; their samples are left out of the fit. */
  warmupMinutes: number;
  client: LoadClient;
  say: (line: string) => void;
}

/** One process's resident memory over the soak. */
export interface RssSeries {
  process: string;
  role: Role;
  /** [minutes since the start, MB] every SAMPLE_EVERY_MS. */
  samples: [number, number][];
  /** Least-squares slope over the samples after warm-up, in MB per minute. */
  growthMbPerMinute: number | null;
  met: boolean | null;
}

export interface SoakReport {
  minutes: number;
  warmupMinutes: number;
  results: { json: LoadResult; stream: LoadResult };
  series: RssSeries[];
}

/** Resident set size of a process, in MB (0 when it is gone). */
function rssMb(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Least-squares slope of y over x (null with fewer than two points). */
export function slope(points: [number, number][]): number | null {
  if (points.length < 2) return null;
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  return sxx === 0 ? null : sxy / sxx;
}

/**
 * `npm run bench -- --soak`: `clients` clients on Switchyard, half of them streaming, for `warmupMinutes`
 * and then `minutes`; the RSS of each API and worker process every 10 s, and its growth after warm-up (a linear fit),
 * against issue 20's limit of 1 MB/min.
 */
export async function runSoak(processes: Managed[], options: SoakOptions): Promise<SoakReport> {
  const roles = processRoles(processes);
  const series = new Map<number, RssSeries>();
  let index = { api: 0, worker: 0 };
  for (const [pid, role] of roles) {
    index = { ...index, [role]: index[role] + 1 };
    series.set(pid, { process: `${role} ${index[role]} (pid ${pid})`, role, samples: [], growthMbPerMinute: null, met: null });
  }
  const started = Date.now();
  const sample = () => {
    const at = (Date.now() - started) / 60_000;
    for (const [pid, s] of series) s.samples.push([round(at, 3), round(rssMb(pid), 1)]);
  };
  sample();
  const timer = setInterval(() => {
    sample();
    const minutes = ((Date.now() - started) / 60_000).toFixed(1);
    options.say(`  soak ${minutes} min: RSS ${[...series.values()].map((s) => `${s.role} ${s.samples.at(-1)?.[1] ?? 0} MB`).join(', ')}`);
  }, SAMPLE_EVERY_MS);
  const load = {
    durationMs: (options.warmupMinutes + options.minutes) * 60_000,
    maxRequests: Number.MAX_SAFE_INTEGER,
    timeoutMs: 30_000,
    client: options.client,
  };
  const half = Math.max(1, Math.floor(options.clients / 2));
  try {
    const [json, stream] = await Promise.all([
      runLoad(options.json, { ...load, concurrency: options.clients - half }),
      runLoad(options.stream, { ...load, concurrency: half }),
    ]);
    sample();
    for (const s of series.values()) {
      s.growthMbPerMinute = slope(s.samples.filter(([at]) => at >= options.warmupMinutes));
      s.met = s.growthMbPerMinute === null ? null : s.growthMbPerMinute < LIMIT_MB_PER_MINUTE;
      if (s.growthMbPerMinute !== null) s.growthMbPerMinute = round(s.growthMbPerMinute, 3);
    }
    return { minutes: options.minutes, warmupMinutes: options.warmupMinutes, results: { json, stream }, series: [...series.values()] };
  } finally {
    clearInterval(timer);
  }
}

export function soakTable(report: SoakReport): string {
  const after = (s: RssSeries) => s.samples.filter(([at]) => at >= report.warmupMinutes);
  return table(
    [
      'process',
      'RSS at start MB',
      `RSS after warm-up (${report.warmupMinutes} min) MB`,
      'RSS at end MB',
      'growth after warm-up MB/min',
      `< ${LIMIT_MB_PER_MINUTE} MB/min`,
    ],
    report.series.map((s) => [
      s.process,
      s.samples[0]?.[1] ?? '–',
      after(s)[0]?.[1] ?? '–',
      s.samples.at(-1)?.[1] ?? '–',
      s.growthMbPerMinute ?? '–',
      s.met === null ? 'not measured' : s.met ? 'PASS' : 'MISS',
    ]),
  );
}

/** Prints the soak's completions and RSS table, and writes its JSON report to `out`. */
export function writeSoakReport(report: SoakReport, { out, started, say }: { out: string; started: number; say: (line: string) => void }): void {
  const { json, stream } = report.results;
  say(
    `\n${json.requests + stream.requests} completions (${json.rps.toFixed(0)}/s JSON, ${stream.rps.toFixed(0)}/s streaming), ${json.errors + stream.errors} errors${json.errorSamples.length + stream.errorSamples.length ? ` (${[...json.errorSamples, ...stream.errorSamples].join('; ')})` : ''}`,
  );
  say(`\nRSS of Switchyard's API and worker processes:\n${soakTable(report)}`);
  const summary = (r: LoadResult) => ({ requests: r.requests, errors: r.errors, rps: r.rps, latency: r.latency, ttft: r.ttft });
  writeFileSync(
    out,
    `${JSON.stringify({ machine: machineInfo(), ...report, results: { json: summary(json), stream: summary(stream) }, total_seconds: Number(((Date.now() - started) / 1000).toFixed(1)) }, null, 2)}\n`,
  );
  say(`\nwrote ${out}`);
}
