#!/usr/bin/env node
// Runs `prisma generate` without the schema-engine binary, which the CLI would otherwise try to
// download: generation does not use it, and the runtime client uses the WASM query compiler.
const { spawnSync } = require('node:child_process');

const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || process.execPath };
const result = spawnSync(process.execPath, [require.resolve('prisma/build/index.js'), 'generate'], { env, stdio: 'inherit' });
process.exit(result.status ?? 1);
