import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countLines } from '../../src/services/openai-files/count-lines';

const dir = mkdtempSync(join(tmpdir(), 'count-lines-'));

async function count(text: string): Promise<number> {
  const path = join(dir, `f${Math.random()}`);
  writeFileSync(path, text);
  return countLines(path);
}

describe('countLines', () => {
  it.each([
    { text: '', lines: 0 },
    { text: '{}', lines: 1 },
    { text: '{}\n', lines: 1 },
    { text: '{}\r\n{}\r\n', lines: 2 },
    { text: '\n\n  \t\r\n{}\n\n{}', lines: 2 },
    { text: '   {}\n', lines: 1 },
  ])('counts $lines non-blank lines in $text', async ({ text, lines }) => {
    expect(await count(text)).toBe(lines);
  });

  it('counts across read chunks (64 KiB) with long lines', async () => {
    const long = `{"x":"${'a'.repeat(100_000)}"}`;
    expect(await count(`${long}\n \n${long}\n${'{}\n'.repeat(30_000)}`)).toBe(30_002);
  });
});
