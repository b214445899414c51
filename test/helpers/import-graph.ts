import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** The repository root: imports are reported relative to it, with `/` separators. */
export const REPO_ROOT = path.resolve(__dirname, '../..');

/** Every `.ts` file under `dir` (relative to the repository root). */
export function tsFilesUnder(dir: string): string[] {
  const absolute = path.join(REPO_ROOT, dir);
  return readdirSync(absolute, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && statSync(path.join(absolute, name)).isFile())
    .map((name) => toRepoPath(path.join(absolute, name)));
}

function toRepoPath(absolute: string): string {
  return path.relative(REPO_ROOT, absolute).split(path.sep).join('/');
}

function resolveRelative(from: string, specifier: string): string | null {
  const base = path.resolve(REPO_ROOT, path.dirname(from), specifier);
  const found = [`${base}.ts`, path.join(base, 'index.ts'), base].find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
  return found ? toRepoPath(found) : null;
}

/**
 * The repository files `file` imports (static imports, re-exports, `import()` and `require`),
 * parsed by TypeScript so comments and strings do not count. Package imports are left out.
 */
export function localImports(file: string): string[] {
  const text = readFileSync(path.join(REPO_ROOT, file), 'utf8');
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .filter(({ fileName }) => fileName.startsWith('.'))
    .map(({ fileName }) => resolveRelative(file, fileName))
    .filter((resolved): resolved is string => resolved !== null);
}

/** Every repository file reachable from `roots` through imports, each with the chain that reached it. */
export function reachableFrom(roots: string[]): Map<string, string[]> {
  const chains = new Map<string, string[]>(roots.map((root) => [root, [root]]));
  const queue = [...roots];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const target of localImports(file)) {
      if (chains.has(target)) continue;
      chains.set(target, [...(chains.get(file) ?? []), target]);
      queue.push(target);
    }
  }
  return chains;
}
