import { readFileSync } from 'node:fs';

/** A CSV file's header and data rows, every row as wide as the header. */
export interface CsvTable {
  header: string[];
  rows: string[][];
}

const QUOTE = '"';
const COMMA = ',';
const NEWLINE = '\n';
const RETURN = '\r';
const BYTE_ORDER_MARK = '\ufeff';

/**
 * Parses RFC 4180 CSV: fields separated by commas, records by CRLF or LF; a field in double quotes may
 * hold commas, line breaks and doubled quotes (`""` for one `"`). A final line break ends the last
 * record rather than starting an empty one. Malformed quoting throws, naming the line, rather than
 * guessing. `source` names the text in errors.
 */
export function parseCsv(text: string, source = 'CSV'): string[][] {
  const body = text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text;
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  /** Whether anything of the current record has been read, so that a final line break adds no empty record. */
  let pending = false;
  let line = 1;
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`${source}: line ${line}: ${why}`);
  };
  const isRecordEnd = (at: number) => body[at] === NEWLINE || (body[at] === RETURN && body[at + 1] === NEWLINE);
  while (i < body.length) {
    const char = body[i];
    pending = true;
    if (char === QUOTE) {
      if (field !== '') fail('a quote inside an unquoted field');
      const quoted = readQuoted(body, i + 1);
      if (!quoted) return fail('a quoted field is never closed');
      field = quoted.value;
      line += quoted.lineBreaks;
      i = quoted.next;
      if (i < body.length && body[i] !== COMMA && !isRecordEnd(i)) fail('text after the closing quote of a field');
    } else if (char === COMMA) {
      record.push(field);
      field = '';
      i++;
    } else if (isRecordEnd(i)) {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      pending = false;
      line++;
      i += char === RETURN ? 2 : 1;
    } else {
      field += char;
      i++;
    }
  }
  if (pending) {
    record.push(field);
    records.push(record);
  }
  return records;
}

/** The quoted field whose text starts at `start` (just past the opening quote), or null if it never closes. */
function readQuoted(body: string, start: number): { value: string; next: number; lineBreaks: number } | null {
  let value = '';
  let lineBreaks = 0;
  let i = start;
  for (;;) {
    const close = body.indexOf(QUOTE, i);
    if (close < 0) return null;
    const chunk = body.slice(i, close);
    value += chunk;
    lineBreaks += chunk.split(NEWLINE).length - 1;
    if (body[close + 1] !== QUOTE) return { value, next: close + 1, lineBreaks };
    value += QUOTE;
    i = close + 2;
  }
}

/** Reads a CSV file with a header line; a row wider or narrower than the header throws, naming the file and row. */
export function readCsvTable(path: string): CsvTable {
  const [header, ...rows] = parseCsv(readFileSync(path, 'utf8'), path);
  if (!header) throw new Error(`${path}: the file is empty (a header line is expected).`);
  rows.forEach((row, n) => {
    if (row.length !== header.length) {
      throw new Error(`${path}: data row ${n + 1} has ${row.length} fields, the header ${header.length}.`);
    }
  });
  return { header, rows };
}

/** The index of each named column; a missing column throws, naming the file. */
export function columnIndex(table: CsvTable, name: string, source: string): number {
  const index = table.header.indexOf(name);
  if (index < 0) throw new Error(`${source}: no column '${name}' (columns: ${table.header.join(', ')}).`);
  return index;
}
