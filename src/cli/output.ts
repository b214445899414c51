export interface Column<T> {
  header: string;
  value(row: T): string | null;
}

/** Shown next to every new secret: the database keeps only its hash. */
export const SHOWN_ONCE_WARNING = 'Warning: this key is shown only once. Store it now; only its SHA-256 hash is kept.';

/** Shown for absent values in tables. */
const EMPTY_CELL = '-';

/** One JSON document per line, so scripts can parse stdout directly. */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** Left-aligned columns separated by two spaces, with no trailing blanks. */
export function formatTable<T>(columns: readonly Column<T>[], rows: readonly T[]): string {
  const cells = [columns.map((c) => c.header), ...rows.map((row) => columns.map((c) => c.value(row) ?? EMPTY_CELL))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => (line[i] ?? '').length)));
  const lines = cells.map((line) =>
    line
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd(),
  );
  return `${lines.join('\n')}\n`;
}

/** `label  value` lines with the labels padded to one width. */
export function formatFields(fields: readonly (readonly [string, string])[]): string {
  const width = Math.max(...fields.map(([label]) => label.length));
  return fields.map(([label, value]) => `${label.padEnd(width)}  ${value}\n`).join('');
}
