import { localImports, reachableFrom, tsFilesUnder } from '../helpers/import-graph';

/**
 * src/routing/ is what runs per request; the offline router tools (datasets, evaluation, bounds,
 * training) live in tools/router-lab/ and may import src/routing/ and src/cli/, never the other way.
 */
const OFFLINE = ['tools/', 'src/cli/'];
const isOffline = (file: string) => OFFLINE.some((prefix) => file.startsWith(prefix));

describe('routing boundaries', () => {
  it('finds the files it guards', () => {
    expect(tsFilesUnder('src/routing')).toContain('src/routing/scorer.ts');
    expect(localImports('tools/router-lab/training/train-cli.ts')).toContain('src/cli/options.ts');
  });

  it('src/routing/ imports neither the offline router tools nor the CLI', () => {
    const crossings = tsFilesUnder('src/routing').flatMap((file) =>
      localImports(file)
        .filter(isOffline)
        .map((target) => `${file} -> ${target}`),
    );
    expect(crossings).toEqual([]);
  });

  it('nothing in src/ imports tools/', () => {
    const crossings = tsFilesUnder('src').flatMap((file) =>
      localImports(file)
        .filter((target) => target.startsWith('tools/'))
        .map((target) => `${file} -> ${target}`),
    );
    expect(crossings).toEqual([]);
  });

  it('nothing the API, the workers or the pipeline load reaches the offline router tools or the CLI', () => {
    const roots = ['src/main.ts', ...tsFilesUnder('workers'), ...tsFilesUnder('src/pipeline'), ...tsFilesUnder('src/routing')];
    // Only the first offline file on each chain: what it imports in turn adds nothing to the report.
    const crossings = [...reachableFrom(roots).values()].filter((chain) => isOffline(chain[chain.length - 1]) && !chain.slice(0, -1).some(isOffline));
    expect(crossings.map((chain) => chain.join(' -> '))).toEqual([]);
  });
});
