import { summariseProfile, type Window } from './profile-summary';
import { STAGE_MEANINGS, STAGES, type Stage } from './stages';

/** One measured cell of Switchyard, with the stretches of time its load ran (two when measured in halves, A-B-B-A). */
export interface ProfiledCell {
  label: string;
  windows: Window[];
  completions: number;
  /** CPU per completion of Switchyard's own processes from /proc in the same cell, in ms. */
  measuredMsPerCompletion: number;
}

export interface StageBudget {
  label: string;
  /** µs of sampled CPU per completion, by stage, summed over Switchyard's processes. */
  usPerCompletion: Record<Stage, number>;
  sampledUsPerCompletion: number;
  measuredUsPerCompletion: number;
}

/**
 * The per-stage CPU budget of each profiled cell: the self time its samples spent in each stage
 * (stages.ts), across every profiled process, per completion of the cell. The profiler's own cost is in
 * the total, so the budget is read as shares of the measured CPU; both totals are shown.
 */
export function stageBudgets(profileFiles: string[], cells: ProfiledCell[], root: string): StageBudget[] {
  return cells.map((cell) => {
    const usPerCompletion = Object.fromEntries(STAGES.map((stage) => [stage, 0])) as Record<Stage, number>;
    for (const file of profileFiles) {
      const summary = summariseProfile(file, { root, windows: cell.windows });
      for (const stage of STAGES) usPerCompletion[stage] += (summary.byStageMs[stage] * 1000) / Math.max(1, cell.completions);
    }
    const sampledUsPerCompletion = STAGES.reduce((sum, stage) => sum + usPerCompletion[stage], 0);
    return { label: cell.label, usPerCompletion, sampledUsPerCompletion, measuredUsPerCompletion: cell.measuredMsPerCompletion * 1000 };
  });
}

/**
 * The budget as a Markdown table: µs per completion by stage, scaled so the stages add up to the CPU
 * measured from /proc without the profiler's overhead, and each stage's share.
 */
export function stageBudgetTable(budgets: StageBudget[]): string {
  const scaled = (budget: StageBudget, stage: Stage) =>
    (budget.usPerCompletion[stage] / Math.max(1, budget.sampledUsPerCompletion)) * budget.measuredUsPerCompletion;
  const header = ['stage', ...budgets.flatMap((b) => [`${b.label} µs`, 'share']), 'what it covers'];
  const rows = STAGES.map((stage) => [
    stage,
    ...budgets.flatMap((b) => [scaled(b, stage).toFixed(0), `${((b.usPerCompletion[stage] / Math.max(1, b.sampledUsPerCompletion)) * 100).toFixed(1)}%`]),
    STAGE_MEANINGS[stage],
  ]);
  rows.push([
    'total (from /proc)',
    ...budgets.flatMap((b) => [b.measuredUsPerCompletion.toFixed(0), '100%']),
    `sampled with the profiler: ${budgets.map((b) => `${b.label} ${b.sampledUsPerCompletion.toFixed(0)} µs`).join(', ')}`,
  ]);
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
