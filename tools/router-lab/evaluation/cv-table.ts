import type { FoldResult } from './cross-validation';
import type { RouterReport } from './evaluate';

/** Mean and sample standard deviation of the folds' values that exist, and how many exist. */
export interface Spread {
  mean: number;
  sd: number;
  count: number;
}

export function spread(values: readonly (number | null | undefined)[]): Spread | null {
  const present = values.filter((v): v is number => v !== null && v !== undefined);
  if (present.length === 0) return null;
  const mean = present.reduce((a, b) => a + b, 0) / present.length;
  const variance = present.length > 1 ? present.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (present.length - 1) : 0;
  return { mean, sd: Math.sqrt(variance), count: present.length };
}

interface Column {
  header: string;
  value(report: RouterReport): number | null | undefined;
  /** How a number is shown. */
  format(value: number): string;
}

const fixed = (digits: number) => (value: number) => value.toFixed(digits);
const percent = (value: number) => `${(value * 100).toFixed(1)}%`;

const COLUMNS: readonly Column[] = [
  { header: 'Quality (w = 0)', value: (r) => r.quality, format: fixed(4) },
  { header: 'Cost, USD per 1k prompts (w = 0)', value: (r) => r.cost * 1000, format: fixed(4) },
  { header: 'CostSave', value: (r) => r.cost_save, format: percent },
  { header: 'AIQ', value: (r) => r.aiq, format: fixed(4) },
  { header: 'CostSave, told true costs', value: (r) => r.cost_save_known_costs, format: percent },
];

const TWO_MODEL_COLUMNS: readonly Column[] = [
  { header: 'APGR', value: (r) => r.apgr, format: fixed(4) },
  { header: 'CPT(50%)', value: (r) => r.cpt50, format: percent },
];

function cell(values: readonly (number | null | undefined)[], format: (value: number) => string): string {
  const s = spread(values);
  if (!s) return '—';
  const text = `${format(s.mean)} ± ${format(s.sd)}`;
  return s.count < values.length ? `${text} (${s.count}/${values.length} folds)` : text;
}

/** Mean ± standard deviation over the folds of each router's figures, as a Markdown table with a heading line. */
export function cvMarkdown(results: readonly FoldResult[], title: string): string {
  const reports = results.map((r) => r.report);
  const twoModel = reports.every((r) => r.pool.length === 2);
  const columns = twoModel ? [...COLUMNS, ...TWO_MODEL_COLUMNS] : COLUMNS;
  const names = Object.keys(reports[0].routers);
  const rows = names.map((name) => [
    name,
    ...columns.map((c) =>
      cell(
        reports.map((r) => c.value(r.routers[name])),
        c.format,
      ),
    ),
  ]);
  const bests = [...new Set(reports.map((r) => r.best_single.model))].join(', ');
  const dropped = results.reduce((sum, r) => sum + r.dropped, 0);
  const lines = [
    `### ${title}`,
    '',
    `${results.length} folds; pool: ${reports[0].pool.join(', ')}; test prompts per fold: ${reports.map((r) => r.prompts.test).join(', ')}` +
      (dropped > 0 ? ` (${dropped} left out for lacking a pool model's outcome)` : '') +
      '.',
    `Best single model (test): ${bests}, quality ${cell(
      reports.map((r) => r.best_single.quality),
      fixed(4),
    )}, ` +
      `cost ${cell(
        reports.map((r) => r.best_single.cost * 1000),
        fixed(4),
      )} USD per 1k prompts.`,
    '',
    `| Router | ${columns.map((c) => c.header).join(' | ')} |`,
    `|---|${columns.map(() => '---:').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
  ];
  return lines.join('\n');
}
