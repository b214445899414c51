// @ts-check
/**
 * Switchyard's house, checked by `npm run lint` (docs/architecture.md draws the same picture).
 *
 * Every top-level room of src/ (and workers/, and the tooling folders prisma/ and scripts/) has one
 * place in one order, bottom to top. A room may import rooms below it and itself, never one above it:
 * so no two rooms import each other, and no import cycle can span rooms. Cycles inside a room are caught by `no-circular`, type-only imports
 * included (`tsPreCompilationDeps`).
 */

/** Bottom to top. Within a layer, too, a room imports only the rooms listed before it. */
const LAYERS = [
  {
    name: 'foundation',
    // Provider-neutral types (chat, completion, embedding, permissions) and the one error type with its code table.
    rooms: ['domain', 'errors'],
  },
  {
    name: 'kernel',
    // Pure helpers and contracts with no connection of their own: tokens, logging, sealing secrets,
    // prices, configuration (the only reader of process.env), the public zod schemas, and the wire
    // bodies that leave by more than one door (HTTP, batch files, webhooks, log views).
    rooms: ['text', 'logging', 'secrets', 'accounting', 'config', 'schemas', 'formats'],
  },
  {
    name: 'adapters',
    // The outside world: outbound HTTP and its SSRF guard, model providers, Redis and BullMQ queues,
    // caches over Redis, PostgreSQL repositories (the only Prisma callers), file storage, plugins.
    rooms: ['net', 'providers', 'queue', 'cache', 'store', 'file-store', 'plugins'],
  },
  {
    name: 'guards',
    // Process-wide concerns every request passes: API-key authentication, circuit breakers and
    // retry budgets, metrics and tracing.
    rooms: ['auth', 'resilience', 'observability'],
  },
  {
    name: 'core',
    // What the service does: model routing, the worker's steps (pipeline), async jobs, the API side
    // of a completion (intake), embeddings, and the application services behind the admin API.
    rooms: ['routing', 'async-jobs', 'pipeline', 'intake', 'embeddings', 'services'],
  },
  {
    name: 'edges',
    // Where work comes in: HTTP (routes, middleware, wire formats), queue workers, the operator CLI.
    rooms: ['http', 'workers', 'cli'],
  },
  {
    name: 'root',
    // Process supervision, the composition root (connections, services, the Express app, the
    // runtime), and main.ts, the only file with side effects at start.
    rooms: ['supervisor', 'app', 'main'],
  },
  {
    name: 'tooling',
    // Shipped operator tooling on top of the service: the model catalog and its seed (prisma/), the
    // migration runner and build/check scripts (scripts/). They may import src/; src/ never imports them.
    rooms: ['prisma', 'scripts'],
  },
];

const ROOMS = LAYERS.flatMap((layer) => layer.rooms);

/** Where a room's files are: a folder of src/, a top-level folder (workers/, prisma/, scripts/), or a top-level file of src/. */
function pathOf(room) {
  if (room === 'workers' || room === 'prisma' || room === 'scripts') return `^${room}/`;
  if (room === 'main') return '^src/main\\.ts$';
  return `^src/${room}/`;
}

const layerRules = ROOMS.slice(0, -1).map((room, index) => ({
  name: `layer-${room}`,
  comment: `${room} (${LAYERS.find((layer) => layer.rooms.includes(room))?.name}) may not import a room above it: ${ROOMS.slice(index + 1).join(', ')}`,
  severity: 'error',
  from: { path: pathOf(room) },
  to: { path: ROOMS.slice(index + 1).map(pathOf) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'room-without-place',
      comment: 'Every top-level room of src/ has a place in LAYERS (.dependency-cruiser.js).',
      severity: 'error',
      from: { path: '^src/', pathNot: [...ROOMS.map(pathOf), '^src/generated/'] },
      to: {},
    },
    {
      name: 'prisma-only-in-store',
      comment:
        'Only store/ talks to Prisma: the client and its runtime values are imported there alone. Other rooms may name its row and JSON types (type-only imports).',
      severity: 'error',
      from: { path: '^(src|workers)/', pathNot: ['^src/store/', '^src/generated/'] },
      to: { path: '^src/generated/prisma/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-tools-in-service',
      comment: 'Offline tooling (tools/: router lab, evaluations, benchmarks, the fault suite) is never loaded by the service or its shipped tooling.',
      severity: 'error',
      from: { path: '^(src|workers|prisma|scripts)/' },
      to: { path: '^tools/' },
    },
    {
      name: 'plugins-behind-their-interface',
      comment:
        "The core and the edges name no plugin: pipeline/, intake/, http/ and services/ import plugins only through src/plugins' top-level files (types, catalog, pre-selection, ...), never a plugin's folder (src/plugins/<id>/).",
      severity: 'error',
      from: { path: '^src/(pipeline|intake|http|services)/' },
      to: { path: '^src/plugins/[^/]+/' },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: ['node_modules', '^src/generated/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['cjs', 'es6'],
  },
};
