import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { build } from 'esbuild';

/**
 * Builds the web console (`console/src`, Preact + chart.js + Pico) into `dist/console`: content-hashed
 * assets under `assets/` (cached for a year by the server) and an `index.html` naming them (never cached).
 * No inline script or style, so the page runs under a strict Content-Security-Policy.
 */

const ROOT = resolve(__dirname, '..');
export const CONSOLE_SOURCE = join(ROOT, 'console');
export const CONSOLE_OUTPUT = join(ROOT, 'dist', 'console');

function indexHtml(script: string, stylesheet: string | undefined): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Switchyard console</title>
<link rel="icon" href="data:,">
${stylesheet ? `<link rel="stylesheet" href="${stylesheet}">\n` : ''}<script type="module" src="${script}"></script>
</head>
<body>
<noscript>The Switchyard console needs JavaScript.</noscript>
<div id="app"></div>
</body>
</html>
`;
}

/** Assets of earlier builds: nothing names them once the new index.html is in place. */
function pruneAssets(assetsDir: string, keep: Set<string>): void {
  for (const name of readdirSync(assetsDir)) {
    if (!keep.has(name)) rmSync(join(assetsDir, name), { force: true });
  }
}

/**
 * Builds into `outDir` (default `dist/console`); returns the assets' names. A server reading the folder
 * meanwhile (or a second build) never sees it half written: hashed names do not collide, and
 * index.html is replaced in one rename.
 */
export async function buildConsole(outDir = CONSOLE_OUTPUT): Promise<{ script: string; stylesheet?: string }> {
  mkdirSync(join(outDir, 'assets'), { recursive: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { app: join(CONSOLE_SOURCE, 'src', 'main.tsx') },
    outdir: join(outDir, 'assets'),
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    metafile: true,
    legalComments: 'linked',
    tsconfig: join(CONSOLE_SOURCE, 'tsconfig.json'),
    logLevel: 'warning',
  });
  const outputs = Object.entries(result.metafile.outputs);
  const entry = outputs.find(([, output]) => output.entryPoint !== undefined);
  if (!entry) throw new Error('esbuild wrote no entry point');
  const asset = (file: string) => relative(outDir, resolve(ROOT, file)).split('\\').join('/');
  const names = { script: asset(entry[0]), stylesheet: entry[1].cssBundle ? asset(entry[1].cssBundle) : undefined };
  const staged = join(outDir, `index.html.${process.pid}.tmp`);
  writeFileSync(staged, indexHtml(names.script, names.stylesheet));
  renameSync(staged, join(outDir, 'index.html'));
  pruneAssets(join(outDir, 'assets'), new Set(outputs.map(([file]) => file.split('/').pop() ?? '')));
  return names;
}

if (require.main === module) {
  const started = Date.now();
  buildConsole().then(
    (names) => process.stdout.write(`console built in ${Date.now() - started} ms: ${names.script}\n`),
    (err: unknown) => {
      process.stderr.write(`${String(err)}\n`);
      process.exit(1);
    },
  );
}
