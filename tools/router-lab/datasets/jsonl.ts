import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { labelledPromptSchema, type LabelledPrompt } from '../evaluation/labelled-prompt';

/**
 * Reads a JSONL file, validating each line with `schema`. Blank lines are skipped; a line that is not
 * JSON or does not match throws an Error naming the file, the line number (from 1) and the fields.
 */
export function readJsonlWith<T>(file: string, schema: z.ZodType<T>): T[] {
  const out: T[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, n) => {
      if (text.trim() === '') return;
      const where = `${file}: line ${n + 1}`;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        throw new Error(`${where}: not JSON (${err instanceof Error ? err.message : String(err)}).`, { cause: err });
      }
      const parsed = schema.safeParse(value);
      if (!parsed.success) throw new Error(`${where}: ${describeIssues(parsed.error)}`);
      out.push(parsed.data);
    });
  return out;
}

/** Reads a file of the router's evaluation format, every line validated. */
export function readJsonl(file: string): LabelledPrompt[] {
  return readJsonlWith(file, labelledPromptSchema);
}

/** Writes one JSON object a line (with a final line break), creating the folder if needed. */
export function writeJsonl(file: string, lines: readonly unknown[]): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
}

/** `field 'outcomes.gpt-4': Too big: ...` for each issue, so the reader can find the bad value. */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.map(String).join('.') : '(the whole line)';
      return `field '${field}': ${issue.message}`;
    })
    .join('; ');
}
