import pino from 'pino';
import type { EmbeddingsConfig, SpaceSearchConfig } from '../../src/config/plugins/space-search';
import { backendClient } from '../../src/net/backend-client';
import { createLegacyFileSearchPlugin, createSpaceFileReader, createSpaceSearchPlugin } from '../../src/plugins/space-search/index';
import type { Plugin, PluginInput, PluginOutput } from '../../src/plugins/types';
import { SpaceVectorCache } from '../../src/plugins/space-search/vector-cache';
import { ingestSpaceFile } from '../../src/services/space-files/ingest-file';
import { SpaceFileChunkRepository } from '../../src/store/space-file-chunks';
import { SpaceFileRepository } from '../../src/store/space-files';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { pluginContext, runPluginScenarios } from '../plugins/scenarios';
import { SIMULATED_DIMENSIONS, startEmbeddingsSimulator, type EmbeddingsSimulator } from '../simulator/plugins/embeddings';

let ctx: TestContext;
let sim: EmbeddingsSimulator;

beforeAll(async () => {
  ctx = createTestContext();
  sim = await startEmbeddingsSimulator();
});
afterAll(async () => {
  await sim.close();
  await ctx.close();
});

const INGEST_LIMITS = { ingestHeapMb: 512, ingestTimeoutMs: 60_000 };
const FULL_TEXT_ONLY: SpaceSearchConfig = { maxFileBytes: 1024 * 1024, ...INGEST_LIMITS, embeddings: null };
const embeddingsConfig = (): EmbeddingsConfig => ({ baseUrl: sim.baseUrl, apiKey: 'sim-key', model: 'text-embedding-3-small', costUsdPerMtok: 0.02 });
const HYBRID = (): SpaceSearchConfig => ({ maxFileBytes: 1024 * 1024, ...INGEST_LIMITS, embeddings: embeddingsConfig() });
const CHUNKING = { heapMb: 512, timeoutMs: 60_000 };

/** Stores a text file in the Space and ingests it as the worker would (with vectors when `embeddings` is given). */
async function addFile(
  tenant: Tenant,
  { name, text, embeddings = null }: { name: string; text: string; embeddings?: EmbeddingsConfig | null },
): Promise<string> {
  const files = new SpaceFileRepository(ctx.services.db);
  const bytes = Buffer.from(text);
  const row = await files.create({
    app_id: tenant.app_id,
    org_id: tenant.org_id,
    name,
    mime_type: 'text/plain',
    size_bytes: bytes.length,
    sha256: 'x'.repeat(64),
    status: 'queued',
    bytes,
  });
  const deps = {
    files,
    chunks: new SpaceFileChunkRepository(ctx.services.db),
    embeddings,
    http: backendClient,
    chunking: CHUNKING,
    logger: pino({ level: 'silent' }),
  };
  await ingestSpaceFile(deps, { fileId: row.id, appId: tenant.app_id }, { lastAttempt: true });
  return row.id;
}

const input = (query: string, args: Record<string, unknown> | null = null): PluginInput => ({
  messages: [{ role: 'user', content: query }],
  query,
  files: [],
  images: [],
  args,
});

function search(
  plugin: Plugin,
  tenant: Tenant,
  { query, maxResults = 5, args = null }: { query: string; maxResults?: number; args?: Record<string, unknown> | null },
): Promise<PluginOutput> {
  const space = { id: tenant.app_id, orgId: tenant.org_id, dataSpaceId: tenant.app_id };
  return plugin.run(
    input(query, args),
    pluginContext({ max_results: maxResults }, { space, signal: AbortSignal.timeout(10_000), deadline: Date.now() + 10_000 }),
  );
}

const names = (output: PluginOutput) => output.searchResults.map((item) => item.file_name);

describe('full-text ranking (no embeddings backend)', () => {
  let tenant: Tenant;
  let plugin: Plugin;
  let ferryId: string;
  beforeAll(async () => {
    tenant = await ctx.tenant();
    plugin = createSpaceSearchPlugin(FULL_TEXT_ONLY, { db: ctx.services.db });
    ferryId = await addFile(tenant, {
      name: 'ferry.txt',
      text: 'Ferry timetable. The ferries leave the harbour at seven and at noon. The night ferry leaves at ten.',
    });
    await addFile(tenant, { name: 'crane.txt', text: 'The crane crane crane lifts containers. Cranes need inspection.' });
    await addFile(tenant, { name: 'harbour-crane.txt', text: 'The harbour crane is inspected every month.' });
    await addFile(tenant, { name: 'bakery.txt', text: 'Bread is baked at dawn.' });
  });

  it('puts the best chunks into the context as numbered sources, and lists them as search results', async () => {
    const output = await search(plugin, tenant, { query: 'When do the ferries leave?', maxResults: 1 });
    expect(output.context).toBe('[1] ferry.txt (chunk 1)\nFerry timetable. The ferries leave the harbour at seven and at noon. The night ferry leaves at ten.');
    expect(output.searchResults).toEqual([
      {
        index: 1,
        source: 'space',
        title: 'ferry.txt',
        file_id: ferryId,
        file_name: 'ferry.txt',
        chunk: 1,
        score: expect.any(Number),
        snippet: expect.stringContaining('**ferries** **leave**'),
      },
    ]);
    expect(output.searchResults[0]?.score).toBeGreaterThan(0);
    expect(output).toMatchObject({ artifacts: [], costUsd: 0 });
  });

  it('ranks chunks holding every term above chunks repeating one', async () => {
    const output = await search(plugin, tenant, { query: 'harbour crane' });
    expect(names(output).slice(0, 1)).toEqual(['harbour-crane.txt']);
    expect(names(output)).toEqual(expect.arrayContaining(['crane.txt', 'ferry.txt']));
    expect(names(output)).not.toContain('bakery.txt');
  });

  it('stems (english configuration) and honours web-search syntax: -word excludes', async () => {
    expect(names(await search(plugin, tenant, { query: 'inspections' }))).toEqual(expect.arrayContaining(['crane.txt', 'harbour-crane.txt']));
    expect(names(await search(plugin, tenant, { query: 'crane -harbour' }))).toEqual(['crane.txt']);
  });

  it("takes the model's tool argument over the last message", async () => {
    expect(names(await search(plugin, tenant, { query: 'ferries', args: { query: 'bread' } }))).toEqual(['bakery.txt']);
  });

  it('answers nothing (not an error) for a query with no match, a Space with no files, or only stop words', async () => {
    const empty = { context: null, searchResults: [], artifacts: [], costUsd: 0 };
    expect(await search(plugin, tenant, { query: 'zeppelin' })).toEqual(empty);
    expect(await search(plugin, await ctx.tenant(), { query: 'ferries' })).toEqual(empty);
    expect(await search(plugin, tenant, { query: 'the and of' })).toEqual(empty);
  });

  it("searches the data Space of the context (a sandbox's parent), not the request's Space", async () => {
    const other = await ctx.tenant();
    const space = { id: other.app_id, orgId: other.org_id, dataSpaceId: tenant.app_id };
    const output = await plugin.run(input('bread'), pluginContext({ max_results: 5 }, { space }));
    expect(names(output)).toEqual(['bakery.txt']);
  });

  it('is the same plugin under its old id legacy-file-search', async () => {
    const legacy = createLegacyFileSearchPlugin(FULL_TEXT_ONLY, { db: ctx.services.db });
    expect(legacy.id).toBe('legacy-file-search');
    expect(plugin.id).toBe('space-search');
    expect(await search(legacy, tenant, { query: 'bread' })).toEqual(await search(plugin, tenant, { query: 'bread' }));
  });

  it('reads a stored file back for transcribe-audio, only through its own Space', async () => {
    const reader = createSpaceFileReader({ db: ctx.services.db });
    expect(await reader.read(tenant.app_id, ferryId)).toEqual({ name: 'ferry.txt', mimeType: 'text/plain', bytes: expect.any(Buffer) });
    expect(await reader.read((await ctx.tenant()).app_id, ferryId)).toBeNull();
    expect(await reader.read(tenant.app_id, 'not-a-uuid')).toBeNull();
  });
});

describe('hybrid ranking with an embeddings backend', () => {
  let tenant: Tenant;
  let hybrid: Plugin;
  let fullText: Plugin;
  beforeAll(async () => {
    sim.faults.reset();
    tenant = await ctx.tenant();
    hybrid = createSpaceSearchPlugin(HYBRID(), { db: ctx.services.db });
    fullText = createSpaceSearchPlugin(FULL_TEXT_ONLY, { db: ctx.services.db });
    const embeddings = embeddingsConfig();
    await addFile(tenant, { name: 'garage.txt', text: 'Service the car every spring: change the oil and rotate the tyres.', embeddings });
    await addFile(tenant, { name: 'bakery.txt', text: 'The bakery schedule: bread at dawn, cakes at noon.', embeddings });
    await addFile(tenant, { name: 'upkeep.txt', text: 'Upkeep of the garden: water the roses weekly.', embeddings });
  });

  it("ranks by cosine in the worker's memory exactly as PostgreSQL does, and follows the Space's files", async () => {
    const chunks = new SpaceFileChunkRepository(ctx.services.db);
    const cache = new SpaceVectorCache(chunks);
    const [query] = (await chunks.vectors(tenant.app_id)).map((row) => row.embedding);
    const vector = query as number[];
    const inMemory = async () =>
      cache.nearest(tenant.app_id, { stamp: (await chunks.search(tenant.app_id, { query: 'x', limit: 1 })).stamp, vector, limit: 50 });
    const keys = (ranked: { file_id: string; position: number }[]) => ranked.map((r) => `${r.file_id}:${r.position}`);
    const before = await inMemory();
    const sql = await chunks.nearest(tenant.app_id, { vector, limit: 50 });
    expect(before.length).toBeGreaterThan(0);
    expect(keys(before)).toEqual(keys(sql));
    before.forEach((row, i) => expect(row.score).toBeCloseTo(sql[i]?.score ?? Number.NaN, 5));
    // A new file changes the chunk set's stamp: the next ranking includes it.
    const added = await addFile(tenant, { name: 'extra.txt', text: 'An extra note about the garage door.', embeddings: embeddingsConfig() });
    const after = await inMemory();
    expect(keys(after)).toEqual(keys(await chunks.nearest(tenant.app_id, { vector, limit: 50 })));
    expect(after.some((row) => row.file_id === added)).toBe(true);
    await new SpaceFileRepository(ctx.services.db).delete(tenant.app_id, added);
    expect((await inMemory()).some((row) => row.file_id === added)).toBe(false);
  });

  it('embeds chunks at ingestion through the OpenAI wire format', async () => {
    const rows = await ctx.services.db.spaceFileChunk.findMany({ where: { app_id: tenant.app_id } });
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row.embedding).toHaveLength(SIMULATED_DIMENSIONS);
      expect(Math.hypot(...row.embedding)).toBeCloseTo(1, 5);
    }
    const ingestion = sim.requests.at(-1);
    expect(ingestion).toMatchObject({
      path: '/v1/embeddings',
      authorization: 'Bearer sim-key',
      body: { model: 'text-embedding-3-small', encoding_format: 'float' },
    });
  });

  it('finds by meaning what full text cannot, and fuses both rankings (RRF)', async () => {
    const query = 'automobile upkeep';
    expect(names(await search(fullText, tenant, { query }))).toEqual(['upkeep.txt']);
    const output = await search(hybrid, tenant, { query, maxResults: 2 });
    expect(names(output).sort()).toEqual(['garage.txt', 'upkeep.txt']);
    // upkeep.txt is first in both rankings; garage.txt second by cosine only; bakery.txt in neither.
    expect(names(output)).toEqual(['upkeep.txt', 'garage.txt']);
    expect(output.searchResults[0]?.score).toBeCloseTo(2 / 61, 6);
    expect(output.searchResults[1]?.score).toBeCloseTo(1 / 62, 6);
    expect(sim.requests.at(-1)?.body.input).toEqual([query]);
  });

  it('charges the query embedding at EMBEDDINGS_COST_USD_PER_MTOK', async () => {
    const output = await search(hybrid, tenant, { query: 'bread' });
    const tokens = Math.ceil('bread'.length / 4);
    expect(output.costUsd).toBeCloseTo((tokens * 0.02) / 1_000_000, 12);
  });

  it('does not call the backend for a Space with no files', async () => {
    const before = sim.requests.length;
    expect((await search(hybrid, await ctx.tenant(), { query: 'anything' })).searchResults).toEqual([]);
    expect(sim.requests.length).toBe(before);
  });

  it('leaves a retryable embeddings failure to the queue before the last attempt', async () => {
    const files = new SpaceFileRepository(ctx.services.db);
    const bytes = Buffer.from('Buoys mark the channel.');
    const row = await files.create({
      app_id: tenant.app_id,
      org_id: tenant.org_id,
      name: 'buoys.txt',
      mime_type: 'text/plain',
      size_bytes: bytes.length,
      sha256: 'x'.repeat(64),
      status: 'queued',
      bytes,
    });
    const deps = {
      files,
      chunks: new SpaceFileChunkRepository(ctx.services.db),
      embeddings: embeddingsConfig(),
      http: backendClient,
      chunking: CHUNKING,
      logger: pino({ level: 'silent' }),
    };
    sim.faults.push({ kind: 'status', status: 503 });
    await expect(ingestSpaceFile(deps, { fileId: row.id, appId: tenant.app_id }, { lastAttempt: false })).rejects.toMatchObject({
      kind: 'server_error',
      retryable: true,
    });
    expect(await ctx.services.db.spaceFile.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ status: 'processing', chunk_count: 0 });
    expect(await ingestSpaceFile(deps, { fileId: row.id, appId: tenant.app_id }, { lastAttempt: false })).toEqual({
      status: 'ready',
      chunks: 1,
      embedded: true,
    });
  });

  it('keeps a file searchable by full text when embeddings fail at ingestion', async () => {
    sim.faults.push({ kind: 'status', status: 400 });
    const id = await addFile(tenant, { name: 'fallback.txt', text: 'Lanterns are lit at dusk.', embeddings: embeddingsConfig() });
    const file = await ctx.services.db.spaceFile.findUniqueOrThrow({ where: { id } });
    expect(file).toMatchObject({ status: 'ready', chunk_count: 1 });
    expect(file.error).toMatch(/^Embeddings unavailable .*; searchable by full text only\.$/);
    expect(names(await search(hybrid, tenant, { query: 'lanterns' }))[0]).toBe('fallback.txt');
  });
});

describe('scenarios against the embeddings simulator', () => {
  const subject = {
    name: 'space-search (hybrid)',
    input: input('automobile upkeep'),
    settings: { max_results: 3 },
    empty: 'error' as const,
    context: {} as Parameters<typeof pluginContext>[1],
    start: async () => {
      sim.faults.reset();
      const tenant = await ctx.tenant();
      await addFile(tenant, { name: 'garage.txt', text: 'Service the car every spring.', embeddings: embeddingsConfig() });
      subject.context = { space: { id: tenant.app_id, orgId: tenant.org_id, dataSpaceId: tenant.app_id } };
      return { plugin: createSpaceSearchPlugin(HYBRID(), { db: ctx.services.db }), close: async () => undefined };
    },
    script: (...faults: Parameters<EmbeddingsSimulator['faults']['push']>) => sim.faults.push(...faults),
    expectOk: (output: PluginOutput) => {
      expect(output.searchResults.map((item) => item.file_name)).toEqual(['garage.txt']);
      expect(output.context).toMatch(/^\[1\] garage\.txt \(chunk 1\)\n/);
      expect(output.costUsd).toBeGreaterThan(0);
    },
  };
  runPluginScenarios(subject);
});
