import { rowsJson } from '../../src/store/log-batcher';
import type { LogRow } from '../../src/pipeline/log-rows';

const row = (fields: Partial<LogRow>): LogRow => ({ id: 'a', org_id: 'o', timestamp: 1, ...fields }) as LogRow;
const parsed = (rows: LogRow[]) => JSON.parse(rowsJson(rows)) as Record<string, unknown>[];

describe('rowsJson (the log batch sent to PostgreSQL)', () => {
  it('writes the timestamp (a BigInt column) as a JSON number, exactly', () => {
    expect(rowsJson([row({ timestamp: 1_795_493_832_260 })])).toContain('"timestamp":1795493832260');
  });

  it('stores NUL as U+FFFD wherever it is, nested or repeated', () => {
    const [out] = parsed([row({ response_text: 'a\u0000b', response: { choices: [{ text: '\u0000\u0000' }] } })]);
    expect(out?.response_text).toBe('a\uFFFDb');
    expect(out?.response).toEqual({ choices: [{ text: '\uFFFD\uFFFD' }] });
  });

  it('leaves text that only looks like an escaped NUL as it is', () => {
    const literal = String.raw`a backslash then u0000: \u0000`;
    const [out] = parsed([row({ response_text: literal, prompt: '\\\u0000' })]);
    expect(out?.response_text).toBe(literal);
    // A backslash followed by a real NUL: the backslash stays, the NUL is replaced.
    expect(out?.prompt).toBe('\\\uFFFD');
  });

  it('never sends the \\u0000 escape PostgreSQL refuses', () => {
    expect(rowsJson([row({ response_text: '\u0000', prompt: '\\\u0000\\\\\u0000' })])).not.toMatch(/(?<!\\)(\\\\)*\\u0000/);
  });
});
