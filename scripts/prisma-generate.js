#!/usr/bin/env node
// Runs `prisma generate` without the schema-engine binary, which the CLI would otherwise try to
// download: generation does not use it, and the runtime client uses the WASM query compiler.
// `prisma` is a devDependency: a production install (`npm ci --omit=dev`) has no CLI, and there the
// client is expected from the build (src/generated, as the Dockerfile copies it), so this says so and succeeds.
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

let cli;
try {
  cli = require.resolve('prisma/build/index.js');
} catch {
  const generated = path.join(__dirname, '..', 'src', 'generated', 'prisma');
  process.stdout.write(
    existsSync(generated)
      ? 'prisma-generate: no prisma CLI (production install), skipped; the Prisma client already in src/generated is used.\n'
      : 'prisma-generate: no prisma CLI (production install), skipped; src/generated has no Prisma client yet: copy it from a build with devDependencies (as the Dockerfile does).\n',
  );
  process.exit(0);
}
const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || process.execPath };
const result = spawnSync(process.execPath, [cli, 'generate'], { env, stdio: 'inherit' });
process.exit(result.status ?? 1);
