import type { Cell, Mode, Path } from './report';
import { round } from './stats';
import { baselineTable, compareWithBaseline, table } from './report';

/** Which CPU meter entries belong to each path: its own processes (Redis and PostgreSQL are added to all). */
export type ProcessesOf = Partial<Record<Path, string[]>>;

/** One of issue 20's goals, Switchyard against the Express floor, from cells of the same run. */
export interface FloorGoal {
  goal: string;
  switchyard: number | null;
  expressFloor: number | null;
  /** Switchyard ÷ the Express floor (a ratio goal), or Switchyard − the Express floor in ms (a latency goal). */
  measured: number | null;
  limit: number;
  unit: '×' | 'ms';
  met: boolean | null;
}

const find = (cells: Cell[], path: Path, at: { mode: Mode; concurrency: number }) =>
  cells.find((c) => c.path === path && c.mode === at.mode && c.concurrency === at.concurrency);

/** CPU per completion of a path's processes plus Redis and PostgreSQL, in ms of one core. */
export function cpuPerCompletion(cell: Cell, processes: ProcessesOf): number {
  const names = [...(processes[cell.path] ?? []), 'redis', 'postgres'];
  return names.reduce((sum, name) => sum + (cell.cpuMs[name] ?? 0), 0) / Math.max(1, cell.result.requests);
}

function ratioGoal(goal: string, values: [number | undefined, number | undefined], { limit, atLeast }: { limit: number; atLeast: boolean }): FloorGoal {
  const [s, f] = values;
  const measured = s === undefined || f === undefined || f === 0 ? null : round(s / f, 2);
  return {
    goal,
    switchyard: s === undefined ? null : round(s, 3),
    expressFloor: f === undefined ? null : round(f, 3),
    measured,
    limit,
    unit: '×',
    met: measured === null ? null : atLeast ? measured >= limit : measured <= limit,
  };
}

function addedGoal(goal: string, values: [number | undefined, number | undefined]): FloorGoal {
  const [s, f] = values;
  const measured = s === undefined || f === undefined ? null : round(s - f, 2);
  return {
    goal,
    switchyard: s === undefined ? null : round(s, 2),
    expressFloor: f === undefined ? null : round(f, 2),
    measured,
    limit: 1,
    unit: 'ms',
    met: measured === null ? null : measured <= 1,
  };
}

/**
 * Issue 20's goals against the Express floor: ≥ 0.75× its completions/s at 64 clients (JSON and
 * stream), added p50 and TTFT p50 at 1 client at most its own + 1 ms, CPU per completion (processes,
 * Redis, PostgreSQL) at most 1.4× its own at 64 clients. Added latency is over the direct path, so the
 * difference of the two added figures is the difference of the two p50s.
 */
export function floorGoals(cells: Cell[], processes: ProcessesOf, subject: Path = 'switchyard'): FloorGoal[] {
  const pair = (mode: Mode, concurrency: number) => [find(cells, subject, { mode, concurrency }), find(cells, 'express-floor', { mode, concurrency })] as const;
  const goals: FloorGoal[] = [];
  for (const mode of ['json', 'stream'] as const) {
    const [s, f] = pair(mode, 64);
    if (s && f)
      goals.push(ratioGoal(`${mode}, 64 clients: completions/s ≥ 0.75× the Express floor's`, [s.result.rps, f.result.rps], { limit: 0.75, atLeast: true }));
  }
  const [j1, fj1] = pair('json', 1);
  if (j1 && fj1) goals.push(addedGoal("json, 1 client: added p50 ≤ the Express floor's + 1 ms", [j1.result.latency.p50, fj1.result.latency.p50]));
  const [s1, fs1] = pair('stream', 1);
  if (s1?.result.ttft && fs1?.result.ttft)
    goals.push(addedGoal("stream, 1 client: added TTFT p50 ≤ the Express floor's + 1 ms", [s1.result.ttft.p50, fs1.result.ttft.p50]));
  for (const mode of ['json', 'stream'] as const) {
    const [s, f] = pair(mode, 64);
    if (s && f)
      goals.push(
        ratioGoal(`${mode}, 64 clients: CPU per completion ≤ 1.4× the Express floor's`, [cpuPerCompletion(s, processes), cpuPerCompletion(f, processes)], {
          limit: 1.4,
          atLeast: false,
        }),
      );
  }
  return goals;
}

const show = (value: number | null, unit: string) => (value === null ? '–' : `${value}${unit === '×' ? '' : ' ms'}`);

export function floorGoalsTable(goals: FloorGoal[], subject = 'Switchyard'): string {
  return table(
    ['goal', subject, 'Express floor', 'measured', 'result'],
    goals.map((g) => [
      g.goal,
      show(g.switchyard, g.unit),
      show(g.expressFloor, g.unit),
      g.measured === null ? '–' : g.unit === '×' ? `${g.measured}×` : `${g.measured >= 0 ? '+' : ''}${g.measured} ms`,
      g.met === null ? 'not measured' : g.met ? 'PASS' : 'MISS',
    ]),
  );
}

/** CPU per completion of each path that has cells, in ms (processes + Redis + PostgreSQL), for the report. */
export function cpuByPathTable(cells: Cell[], processes: ProcessesOf): string {
  return table(
    ['path', 'mode', 'clients', 'own processes ms', 'Redis ms', 'PostgreSQL ms', 'total ms/completion'],
    cells
      .filter((c) => processes[c.path])
      .map((c) => {
        const per = (n: number) => (n / Math.max(1, c.result.requests)).toFixed(3);
        const own = (processes[c.path] ?? []).reduce((sum, name) => sum + (c.cpuMs[name] ?? 0), 0);
        return [c.path, c.mode, c.concurrency, per(own), per(c.cpuMs.redis ?? 0), per(c.cpuMs.postgres ?? 0), cpuPerCompletion(c, processes).toFixed(3)];
      }),
  );
}

/**
 * The floors' part of the report: the Express floor against the bare one, Switchyard against the
 * Express floor, CPU per completion of each path, and issue 20's goals (informative: PASS or MISS).
 */
export function floorReport(cells: Cell[], processes: ProcessesOf): { text: string; json: object } {
  const goals = floorGoals(cells, processes);
  // The same goals met by the required-work floor and the configured floor: where one misses a goal, no implementation can meet it.
  const bound = floorGoals(cells, processes, 'required-floor');
  const configured = floorGoals(cells, processes, 'configured-floor');
  const expressOverBare = compareWithBaseline(cells, 'floor', 'express-floor');
  const againstExpress = compareWithBaseline(cells, 'express-floor');
  const parts = [
    expressOverBare.length > 0
      ? `The Express floor against the bare queue floor, same run:\n${baselineTable(expressOverBare, { other: 'floor', now: 'Express floor' })}`
      : '',
    againstExpress.length > 0
      ? `Switchyard against the Express floor, same run:\n${baselineTable(againstExpress, { other: 'Express floor', now: 'Switchyard' })}`
      : '',
    `CPU per completion, own processes + Redis + PostgreSQL (ms of one core):\n${cpuByPathTable(cells, processes)}`,
    goals.length > 0 ? `Issue 20's goals against the Express floor (informative; the benchmark exits 0 either way):\n${floorGoalsTable(goals)}` : '',
    bound.length > 0
      ? `The same goals for the required-work floor (the Express floor plus what no implementation may leave out: each request admitted in one Redis script, the Space's version stamp and the rate limit; a non-streaming answer read as a stream; the log's parent and child rows in the logs table's shape). A goal it misses is out of reach:\n${floorGoalsTable(bound, 'required floor')}`
      : '',
    configured.length > 0
      ? `The same goals for the configured floor (the required floor plus the rest of issue 20's configuration, each part the leanest way: the key looked up by its hash, the request validated by one zod schema, routing among the active models by their static figures, a breaker per model, the operators' metrics, costs and savings in the log and the answer's metadata). A goal it misses is out of reach:\n${floorGoalsTable(configured, 'configured floor')}`
      : '',
  ];
  return {
    text: parts
      .filter(Boolean)
      .map((part) => `\n${part}`)
      .join('\n'),
    json: {
      express_floor_against_floor: expressOverBare,
      switchyard_against_express_floor: againstExpress,
      cpu_per_completion: cpuRows(cells, processes),
      issue_20_goals: goals,
      required_floor_goals: bound,
      configured_floor_goals: configured,
    },
  };
}

function cpuRows(cells: Cell[], processes: ProcessesOf): object[] {
  return cells
    .filter((c) => processes[c.path])
    .map((c) => ({ path: c.path, mode: c.mode, concurrency: c.concurrency, ms_per_completion: round(cpuPerCompletion(c, processes)) }));
}
