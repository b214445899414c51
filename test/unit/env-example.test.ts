import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ENV_VARIABLES, loadConfig } from '../../src/config/load';
import { DEFAULT_BASE_URLS, PROVIDER_IDS } from '../../src/config/schema';

const root = path.join(__dirname, '../..');
const lines = readFileSync(path.join(root, '.env.example'), 'utf8').split('\n');
const ASSIGNMENT = /^([A-Z][A-Z0-9_]*)=(.*)$/;

/** `NAME=value` lines of .env.example, with the comment block that precedes each group of them. */
function entries(): { name: string; value: string; comment: string }[] {
  const found: { name: string; value: string; comment: string }[] = [];
  lines.forEach((line, index) => {
    const match = ASSIGNMENT.exec(line);
    if (!match) return;
    let end = index - 1;
    while (end >= 0 && ASSIGNMENT.test(lines[end] ?? '')) end -= 1;
    let start = end;
    while (start >= 0 && (lines[start] ?? '').startsWith('#')) start -= 1;
    found.push({ name: match[1] as string, value: match[2] as string, comment: lines.slice(start + 1, end + 1).join('\n') });
  });
  return found;
}

describe('.env.example', () => {
  const documented = entries();
  const names = documented.map((entry) => entry.name);

  it('lists every variable loadConfig reads, once', () => {
    expect([...names].sort()).toEqual([...ENV_VARIABLES].sort());
  });

  it('covers every provider by its id', () => {
    for (const id of PROVIDER_IDS) {
      expect(names).toEqual(expect.arrayContaining([`${id.toUpperCase()}_API_KEY`, `${id.toUpperCase()}_BASE_URL`]));
    }
  });

  it('knows every variable load.ts reads, so ENV_VARIABLES cannot fall behind', () => {
    const source = readFileSync(path.join(root, 'src/config/load.ts'), 'utf8');
    const read = [...source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)].map((match) => match[1]);
    expect(read.length).toBeGreaterThan(0);
    for (const name of read) expect(ENV_VARIABLES).toContain(name);
  });

  it('puts a comment above every variable', () => {
    for (const { name, comment } of documented) expect({ name, commented: comment.length > 0 }).toEqual({ name, commented: true });
  });

  it('shows each provider default base URL', () => {
    for (const id of PROVIDER_IDS) {
      const entry = documented.find((e) => e.name === `${id.toUpperCase()}_BASE_URL`);
      expect(entry?.comment).toContain(DEFAULT_BASE_URLS[id]);
    }
  });

  it('holds the defaults: loading it gives the same configuration as an empty environment', () => {
    const env = Object.fromEntries(documented.map(({ name, value }) => [name, value]));
    expect(loadConfig(env)).toEqual(loadConfig({}));
  });
});
