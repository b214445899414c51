#!/usr/bin/env node
// Runs one entry point (the CLI, the migration runner, the catalog seed) compiled, from dist/, when the
// build there is newer than every TypeScript source it was made from; else from the sources through tsx,
// so a fresh clone works before `npm run build` and an edited source is never shadowed by an old build.
//   node scripts/run-entry.js src/cli/main.ts [args...]     (what `npm run cli` runs)
// Compiled, `npm run -s cli -- --help` takes about half the CPU time of tsx (docs/cli.md); looking at the
// sources' times costs under 0.1 s.
// It runs in this process (no child to forward signals and exit codes to): the entry sees its own
// arguments at process.argv.slice(2), as when started directly.
const { existsSync, readdirSync, statSync } = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
/** Where the build's TypeScript comes from (`tsconfig.build.json`), and the settings it is compiled with: a change to any counts. */
const SOURCE_DIRS = ['src', 'workers', 'prisma', 'scripts'];
const SOURCE_FILES = ['tsconfig.json', 'tsconfig.build.json'];

/** The newest modification time (ms) of the build's inputs; 0 where there are none (the Docker image ships dist/ alone). */
function newestSource() {
  let newest = 0;
  const consider = (file) => {
    newest = Math.max(newest, statSync(file).mtimeMs);
  };
  for (const file of SOURCE_FILES) if (existsSync(path.join(ROOT, file))) consider(path.join(ROOT, file));
  for (const dir of SOURCE_DIRS) {
    const top = path.join(ROOT, dir);
    if (!existsSync(top)) continue;
    for (const entry of readdirSync(top, { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith('.ts')) consider(path.join(entry.parentPath ?? entry.path, entry.name));
    }
  }
  return newest;
}

const [entry, ...args] = process.argv.slice(2);
if (!entry || !entry.endsWith('.ts') || !SOURCE_DIRS.includes(entry.split(/[\\/]/)[0])) {
  process.stderr.write(`usage: node scripts/run-entry.js <${SOURCE_DIRS.join('|')}>/<file>.ts [args...]\n`);
  process.exit(2);
}
const source = path.join(ROOT, entry);
const compiled = path.join(ROOT, 'dist', entry.replace(/\.ts$/, '.js'));
const useBuild = existsSync(compiled) && statSync(compiled).mtimeMs >= newestSource();

process.argv = [process.argv[0], useBuild ? compiled : source, ...args];
if (useBuild) {
  require(compiled);
} else if (!existsSync(source)) {
  process.stderr.write(`Neither ${path.relative(ROOT, compiled)} nor ${entry} exists: run \`npm run build\`.\n`);
  process.exit(1);
} else {
  // tsx's loader registers its CommonJS and ESM hooks, as `node --import tsx` does (some imports are dynamic).
  import('tsx').then(() => require(source));
}
