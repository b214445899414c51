import type { Row } from './row';
import type { Verdict } from './targets';

function table(header: string[], rows: (string | number)[][]): string {
  const lines = [header, header.map(() => '---'), ...rows.map((r) => r.map(String))];
  return lines.map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

const figure = (value: number | null) => (value === null ? '–' : String(value));

/** The suite's one table: a line per fault. */
export function rowsTable(rows: Row[]): string {
  return table(
    ['fault', 'sent', 'answered', 'ok', '5xx', 'lost logs', 'upstream calls/req', 'p50 ms', 'p99 ms', 'other'],
    rows.map((r) => [
      r.fault,
      r.sent,
      r.answered,
      r.ok,
      r.fiveXx,
      figure(r.lostLogs),
      figure(r.callsPerRequest),
      figure(r.p50Ms),
      figure(r.p99Ms),
      Object.entries(r.other)
        .map(([name, value]) => `${name}: ${value}`)
        .join('; ') || '–',
    ]),
  );
}

export function verdictsTable(verdicts: Verdict[]): string {
  return table(
    ['fault', 'target', 'measured', 'met'],
    verdicts.map((v) => [v.target.fault, v.target.rule.replace(/\|/g, '\\|'), figure(v.measured), v.met ? 'yes' : '**no**']),
  );
}

export function notesOf(rows: Row[]): string {
  return rows.map((r) => `- **${r.fault}**: ${r.notes.join('; ') || '–'}`).join('\n');
}
