import { readCsvTable } from './csv';

/** A CSV of one row per prompt and one column per model, keyed by the prompt's id (the first column). */
export interface ModelTable {
  models: string[];
  /** Each prompt's model cells, in the order of `models`. */
  rows: Map<string, string[]>;
}

/**
 * Reads a prompt-by-model CSV whose first columns are exactly `leading` (the first being the key) and
 * whose other columns are models. A wrong header or a repeated key throws, naming the file.
 */
export function readModelTable(file: string, leading: readonly string[]): ModelTable {
  const table = readCsvTable(file);
  if (leading.some((name, i) => table.header[i] !== name)) {
    throw new Error(`${file}: the header must start with '${leading.join(',')}', found '${table.header.join(',')}'.`);
  }
  const rows = new Map<string, string[]>();
  for (const row of table.rows) {
    if (rows.has(row[0])) throw new Error(`${file}: ${leading[0]} ${row[0]} appears twice.`);
    rows.set(row[0], row.slice(leading.length));
  }
  return { models: table.header.slice(leading.length), rows };
}

/** A model's cell for a prompt; undefined when the prompt or the model is absent, '' when the cell is empty. */
export function modelCell(table: ModelTable, key: string, model: string): string | undefined {
  const index = table.models.indexOf(model);
  return index < 0 ? undefined : table.rows.get(key)?.[index];
}

/** A cell that must hold a whole number (a count of characters, say). */
export function wholeNumberCell(cell: string, source: string): number {
  if (!/^\d+$/.test(cell)) throw new Error(`${source}: expected a whole number, found '${cell}'.`);
  return Number(cell);
}
