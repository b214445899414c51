import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROVIDER_IDS } from '../../src/config/schema';
import { QUALITY_CATEGORIES } from '../../src/domain/quality-categories';
import { catalogSchema, type CatalogEntry } from '../../src/schemas/model-catalog';
import type { CatalogEmbeddingEntry } from '../../src/schemas/model-catalog-embedding';
import { catalogEmbeddingEntryToRow, catalogEntryToRow, changedColumns } from '../../prisma/catalog/to-row';
import { readCatalog } from '../../prisma/seed-catalog';

const catalog = readCatalog();
const upstream = catalog.models.filter((m) => m.provider !== 'test');
const testModels = catalog.models.filter((m) => m.provider === 'test');
const defaults = catalog.models.filter((m) => m.default_active);

/** A plain JSON copy of the shipped catalog, to break on purpose. */
function rawCatalog(): { version: string; models: Record<string, unknown>[] } {
  return JSON.parse(JSON.stringify(catalog)) as { version: string; models: Record<string, unknown>[] };
}

function firstIssue(input: unknown): string {
  const parsed = catalogSchema.safeParse(input);
  if (parsed.success) throw new Error('expected the catalog to be rejected');
  const issue = parsed.error.issues[0];
  return `${issue?.path.join('.')}: ${issue?.message}`;
}

function withEntry(index: number, patch: Record<string, unknown>) {
  const raw = rawCatalog();
  raw.models[index] = { ...raw.models[index], ...patch };
  return raw;
}

describe('the shipped catalog (prisma/catalog/models.json)', () => {
  it('validates and holds 30 to 45 upstream models plus the four test models', () => {
    expect(upstream.length).toBeGreaterThanOrEqual(30);
    expect(catalog.models.length).toBeLessThanOrEqual(45);
    expect(catalog.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('covers every provider of the brief and uses only configured providers', () => {
    const providers = new Set(catalog.models.map((m) => m.provider));
    for (const id of ['openai', 'anthropic', 'gemini', 'mistral', 'groq', 'together', 'deepseek', 'xai', 'test']) {
      expect(providers).toContain(id);
    }
    for (const id of providers) expect([...PROVIDER_IDS, 'test']).toContain(id);
  });

  it('gives every upstream model positive prices and every test model zero', () => {
    for (const m of upstream) {
      expect([m.model, m.prices.prompt_per_1m > 0, m.prices.completion_per_1m > 0]).toEqual([m.model, true, true]);
    }
    for (const m of testModels) expect(m.prices).toEqual({ prompt_per_1m: 0, completion_per_1m: 0 });
  });

  it('keeps the built-in test models, inactive by default and streaming', () => {
    const byName = Object.fromEntries(testModels.map((m) => [m.model, m]));
    expect(Object.keys(byName).sort()).toEqual(['test-echo', 'test-error', 'test-fixed', 'test-slow']);
    for (const behaviour of ['echo', 'fixed', 'slow', 'error'] as const) {
      const entry = byName[`test-${behaviour}`] as CatalogEntry;
      expect(entry).toMatchObject({ namespace: behaviour, test_behaviour: behaviour, default_active: false, owner: 'switchyard' });
      expect(entry.capabilities.stream).toBe(true);
      expect(entry.description.toLowerCase()).toContain('stream');
      expect(catalogEntryToRow(entry).is_test_model).toBe(true);
    }
    for (const m of upstream) expect(catalogEntryToRow(m).is_test_model).toBe(false);
  });

  it("says in every test model's description that it gives test output, and flags its capabilities truthfully", () => {
    for (const m of testModels.filter((entry) => entry.model !== 'test-error'))
      expect([m.model, m.description]).toEqual([m.model, expect.stringContaining('test output')]);
    const capabilities = Object.fromEntries(testModels.map((m) => [m.model, [m.capabilities.functions, m.capabilities.json]]));
    // test-error fails whatever is asked: it claims everything so that it can be tried first for any request.
    expect(capabilities).toEqual({ 'test-echo': [true, true], 'test-slow': [true, true], 'test-fixed': [false, false], 'test-error': [true, true] });
  });

  it('ships the free, keyless test-embedding model (256 dimensions) beside the upstream embedding models', () => {
    const testEmbedding = catalog.embedding_models.find((m) => m.model === 'test-embedding');
    expect(testEmbedding).toMatchObject({
      provider: 'test',
      namespace: 'embedding',
      owner: 'switchyard',
      dimensions: 256,
      prices: { prompt_per_1m: 0 },
      default_active: false,
      url: '',
    });
    expect(testEmbedding?.description).toContain('test output');
    expect(catalogEmbeddingEntryToRow(testEmbedding as CatalogEmbeddingEntry)).toMatchObject({ is_test_model: true, is_chat: false, prompt_token_cost: 0 });
    for (const m of catalog.embedding_models.filter((entry) => entry.provider !== 'test')) {
      expect([m.model, m.prices.prompt_per_1m > 0, m.url !== '', catalogEmbeddingEntryToRow(m).is_test_model]).toEqual([m.model, true, true, false]);
    }
  });

  it('activates a small spread of current models by default', () => {
    expect(defaults.length).toBeGreaterThanOrEqual(6);
    expect(defaults.length).toBeLessThanOrEqual(10);
    expect(new Set(defaults.map((m) => m.provider)).size).toBeGreaterThanOrEqual(5);
    for (const m of defaults) {
      expect([m.model, m.deprecated_on, m.until, m.provider === 'test']).toEqual([m.model, undefined, undefined, false]);
    }
  });

  it('flags some older models as deprecated, inactive, with the deprecation before the end of service', () => {
    const deprecated = upstream.filter((m) => m.deprecated_on !== undefined);
    expect(deprecated.length).toBeGreaterThanOrEqual(3);
    expect(new Set(deprecated.map((m) => m.provider)).size).toBeGreaterThanOrEqual(3);
    for (const m of deprecated) {
      expect(m.default_active).toBe(false);
      expect(m.until !== undefined && m.deprecated_on !== undefined && m.deprecated_on <= m.until).toBe(true);
    }
  });

  it('scores every model on every category, within 0..1', () => {
    for (const m of catalog.models) {
      expect(Object.keys(m.quality.categories).sort()).toEqual([...QUALITY_CATEGORIES].sort());
      for (const score of [m.quality.overall, ...Object.values(m.quality.categories)]) {
        expect(score).toBeGreaterThanOrEqual(0);
        expect(score).toBeLessThanOrEqual(1);
      }
    }
  });

  it('names models served by an inference host after the host and the upstream id', () => {
    for (const m of catalog.models.filter((entry) => entry.provider === 'groq' || entry.provider === 'together')) {
      expect(m.model).toBe(`${m.provider}/${m.namespace}`);
    }
  });
});

describe('catalogSchema', () => {
  it('accepts the shipped catalog as plain JSON', () => {
    expect(catalogSchema.safeParse(rawCatalog()).success).toBe(true);
  });

  it('rejects a duplicate model name', () => {
    const raw = rawCatalog();
    raw.models.push({ ...raw.models[0], namespace: 'another-upstream-id' });
    expect(firstIssue(raw)).toBe(`models.${raw.models.length - 1}.model: duplicate model '${String(raw.models[0]?.model)}'`);
  });

  it('rejects a duplicate provider and namespace', () => {
    const raw = rawCatalog();
    raw.models.push({ ...raw.models[0], model: 'an-alias' });
    const first = raw.models[0] as { provider: string; namespace: string };
    expect(firstIssue(raw)).toBe(`models.${raw.models.length - 1}.namespace: duplicate provider and namespace '${first.provider}:${first.namespace}'`);
  });

  it.each([
    ['an unknown provider', { provider: 'acme' }, 'models.0.provider'],
    ['an unknown field', { colour: 'blue' }, 'models.0'],
    ['a negative price', { prices: { prompt_per_1m: -1, completion_per_1m: 1 } }, 'models.0.prices.prompt_per_1m'],
    ['a free upstream model', { prices: { prompt_per_1m: 0, completion_per_1m: 1 } }, 'models.0.prices.prompt_per_1m'],
    ['a zero context window', { context_window: 0 }, 'models.0.context_window'],
    ['an impossible date', { deprecated_on: '2025-02-30' }, 'models.0.deprecated_on'],
    ['deprecation after the end of service', { deprecated_on: '2025-06-01', until: '2025-05-01' }, 'models.0.deprecated_on'],
    ['a deprecated default model', { until: '2030-01-01', default_active: true }, 'models.0.default_active'],
    ['a missing url', { url: '' }, 'models.0.url'],
  ])('rejects %s', (_label, patch, path) => {
    expect(firstIssue(withEntry(0, patch))).toMatch(new RegExp(`^${path.replace(/\./g, '\\.')}[.:]`));
  });

  it('rejects a quality profile with a missing or unknown category', () => {
    const raw = rawCatalog();
    const quality = (raw.models[0] as { quality: { overall: number; categories: Record<string, number> } }).quality;
    const { law: _law, ...withoutLaw } = quality.categories;
    expect(firstIssue(withEntry(0, { quality: { ...quality, categories: withoutLaw } }))).toMatch(/^models\.0\.quality\.categories\.law:/);
    expect(firstIssue(withEntry(0, { quality: { ...quality, categories: { ...quality.categories, poetry: 0.5 } } }))).toMatch(
      /^models\.0\.quality\.categories/,
    );
  });

  it('holds test models to their rules', () => {
    const index = rawCatalog().models.findIndex((m) => m.model === 'test-echo');
    expect(firstIssue(withEntry(index, { namespace: 'fixed' }))).toMatch(/namespace must equal its test_behaviour/);
    expect(firstIssue(withEntry(index, { prices: { prompt_per_1m: 1, completion_per_1m: 1 } }))).toMatch(/test models are free/);
    expect(firstIssue(withEntry(index, { test_behaviour: undefined }))).toMatch(/needs a test_behaviour/);
    expect(firstIssue(withEntry(0, { test_behaviour: 'echo' }))).toMatch(/only provider 'test' has a test_behaviour/);
  });

  it('holds embedding models to the same rules: only test ones are free, have no url and are owned by switchyard', () => {
    const raw = rawCatalog() as ReturnType<typeof rawCatalog> & { embedding_models: Record<string, unknown>[] };
    const at = raw.embedding_models.findIndex((m) => m.model === 'test-embedding');
    const patched = (index: number, patch: Record<string, unknown>) => {
      const copy = rawCatalog() as typeof raw;
      copy.embedding_models[index] = { ...copy.embedding_models[index], ...patch };
      return copy;
    };
    expect(firstIssue(patched(at, { prices: { prompt_per_1m: 1 } }))).toMatch(/test models are free/);
    expect(firstIssue(patched(at, { owner: 'openai' }))).toMatch(/owned by switchyard/);
    expect(firstIssue(patched(0, { prices: { prompt_per_1m: 0 } }))).toMatch(/upstream models have a positive price/);
    expect(firstIssue(patched(0, { url: '' }))).toMatch(/need a documentation url/);
    expect(firstIssue(patched(0, { owner: 'switchyard' }))).toMatch(/reserved for test models/);
  });

  it('requires at least one default-active model', () => {
    const raw = rawCatalog();
    raw.models = raw.models.map((m) => ({ ...m, default_active: false }));
    expect(firstIssue(raw)).toBe('models: no default_active model');
  });
});

describe('readCatalog', () => {
  it('names the file and the first problem of an invalid catalog', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'catalog-')), 'models.json');
    writeFileSync(file, JSON.stringify(withEntry(0, { context_window: -5 })));
    expect(() => readCatalog(file)).toThrow(`Invalid catalog ${file}: models.0.context_window: `);
  });
});

describe('catalogEntryToRow', () => {
  const entry = (patch: Partial<CatalogEntry> = {}): CatalogEntry => ({ ...(catalog.models[0] as CatalogEntry), ...patch });

  it('turns prices per 1M tokens into prices per token', () => {
    const row = catalogEntryToRow(entry({ prices: { prompt_per_1m: 0.15, completion_per_1m: 0.6 } }));
    expect(row.prompt_token_cost).toBeCloseTo(0.15e-6, 15);
    expect(row.completion_token_cost).toBeCloseTo(0.6e-6, 15);
    expect(row.price_unit).toBe('tokens');
  });

  it('turns ISO days into UTC midnights, and absent days into null', () => {
    const row = catalogEntryToRow(entry({ deprecated_on: '2025-06-30', until: '2026-01-05' }));
    expect(row.deprecated_on?.toISOString()).toBe('2025-06-30T00:00:00.000Z');
    expect(row.until?.toISOString()).toBe('2026-01-05T00:00:00.000Z');
    const plain = catalogEntryToRow(entry({ deprecated_on: undefined, until: undefined }));
    expect([plain.deprecated_on, plain.until]).toEqual([null, null]);
  });

  it('maps capabilities and marks the row public and from the catalog', () => {
    const row = catalogEntryToRow(
      entry({ capabilities: { functions: true, json: false, vision: true, stream: true, n: false, penalties: true, reasoning: true } }),
    );
    expect(row).toMatchObject({
      supports_functions: true,
      supports_json: false,
      supports_vision: true,
      supports_stream: true,
      supports_n: false,
      supports_penalties: true,
      supports_reasoning: true,
      is_public: true,
      is_chat: true,
      added_by: 'catalog',
    });
  });
});

describe('changedColumns', () => {
  const row = catalogEntryToRow(catalog.models[0] as CatalogEntry);
  const stored = (): Record<keyof typeof row, unknown> => JSON.parse(JSON.stringify({ ...row, deprecated_on: null, until: null }));

  it('finds nothing when the stored row matches, whatever the JSON key order', () => {
    const copy = stored();
    const categories = Object.entries(row.quality_profile.categories).reverse();
    copy.quality_profile = { categories: Object.fromEntries(categories), overall: row.quality_profile.overall };
    expect(changedColumns(copy, row)).toEqual([]);
  });

  it('names the columns that differ', () => {
    const copy = { ...stored(), prompt_token_cost: 1, until: new Date('2030-01-01T00:00:00Z') };
    expect(changedColumns(copy, row)).toEqual(['prompt_token_cost', 'until']);
  });

  it('compares dates by instant', () => {
    const dated = catalogEntryToRow({ ...(catalog.models[0] as CatalogEntry), until: '2030-01-01' });
    const copy = { ...stored(), until: new Date(Date.UTC(2030, 0, 1)) };
    expect(changedColumns(copy, dated)).toEqual([]);
  });
});
