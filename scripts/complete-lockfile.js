#!/usr/bin/env node
// Some registry mirrors serve only the platform binaries of the machine they serve (our CI's lacks
// darwin/win32/... builds of msgpackr-extract and unrs-resolver). `npm install` there leaves those
// optional packages out of package-lock.json, and npm 11's `npm ci` then refuses the lockfile.
// This adds the missing entries (name, version, os, cpu, optional) so `npm ci` accepts the lockfile
// everywhere; npm skips them on other platforms and fetches them by version where they apply.
// Run it after `npm install` changes the lockfile: `node scripts/complete-lockfile.js`.
const fs = require('node:fs');

const OS_NAMES = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openharmony'];
const CPU_NAMES = ['arm64', 'x64', 'ia32', 'arm', 'loong64', 'ppc64', 's390x', 'riscv64'];

/** `@scope/pkg-linux-arm-gnueabihf` → { os: ['linux'], cpu: ['arm'], libc?: ['glibc'] } */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS_NAMES.includes(p));
  const cpu = parts.find((p) => CPU_NAMES.includes(p));
  if (!os || !cpu) return null;
  const platform = { os: [os], cpu: [cpu] };
  if (os === 'linux' && parts.some((p) => p.startsWith('musl'))) platform.libc = ['musl'];
  else if (os === 'linux' && parts.some((p) => p.startsWith('gnu'))) platform.libc = ['glibc'];
  return platform;
}

const file = 'package-lock.json';
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const added = [];
for (const [path, meta] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const nested = path ? `${path}/node_modules/${name}` : `node_modules/${name}`;
    const hoisted = `node_modules/${name}`;
    const platform = platformOf(name);
    if (lock.packages[nested] || lock.packages[hoisted] || !platform || !/^\d+\.\d+\.\d+$/.test(version)) continue;
    lock.packages[hoisted] = { version, ...(meta.dev ? { dev: true } : {}), optional: true, ...platform };
    added.push(`${name}@${version}`);
  }
}
const sorted = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
fs.writeFileSync(file, `${JSON.stringify({ ...lock, packages: sorted }, null, 2)}\n`);
process.stdout.write(added.length ? `Added ${added.length} platform entries:\n  ${added.join('\n  ')}\n` : 'Lockfile complete.\n');
