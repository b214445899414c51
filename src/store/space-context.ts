import { z } from 'zod';
import { TtlCache } from '../cache/ttl-cache';
import type { ModelEndpoint, RoutableModel } from '../domain/routable-model';
import type { Model } from '../generated/prisma/client';
import type { Policies, Settings, Weights } from '../schemas/apps';
import { autoToolsSettings, type AutoToolsSettings } from '../schemas/plugin-settings';

export type { AutoToolsSettings };
import { readPolicies, readSettings, readWeights } from '../schemas/stored-space-config';
import type { Db } from './db';
import { readSpaceRows } from './space-rows';

/** A Space's configuration as a completion needs it. */
export interface SpaceContext {
  id: string;
  orgId: string;
  isActive: boolean;
  /** Requests per minute; 0 = no limit. */
  rateLimit: number;
  /** A sandbox Space: its requests are logged with `is_test`. */
  isSandbox: boolean;
  /** The Space whose files plugins search: the parent of a sandbox with `use_parent_custom_data`, else this one. */
  dataSpaceId: string;
  weights: Weights;
  policies: Policies;
  settings: Settings;
  /** `settings.auto_tools` with defaults filled in. */
  autoTools: AutoToolsSettings;
  hasFailoverChain: boolean;
  /** Chat models active in the Space and not globally disabled, in catalog order: the router's candidates. */
  models: RoutableModel[];
  /** Embedding models (`is_chat` false) active in the Space and not globally disabled: only `POST /v1/embeddings` uses them. */
  embeddingModels: RoutableModel[];
  failoverChain: RoutableModel[];
  benchmark: RoutableModel | null;
  /** The benchmark when it is an embedding model: what embeddings' savings are measured against. */
  embeddingBenchmark: RoutableModel | null;
}

const qualityProfile = z
  .object({ overall: z.number().catch(0.5), categories: z.record(z.string(), z.number()).catch({}) })
  .catch({ overall: 0.5, categories: {} });

/** The columns of a `models` row that routing reads. */
export type RoutableRow = Pick<
  Model,
  | 'id'
  | 'model'
  | 'provider'
  | 'namespace'
  | 'owner'
  | 'at'
  | 'context_window'
  | 'prompt_token_cost'
  | 'completion_token_cost'
  | 'base_cost'
  | 'supports_functions'
  | 'supports_json'
  | 'supports_vision'
  | 'supports_stream'
  | 'supports_n'
  | 'supports_penalties'
  | 'supports_reasoning'
  | 'is_gdpr'
  | 'deprecated_on'
  | 'until'
  | 'quality_profile'
> &
  /** Read for custom models only (see endpointOf); rows built outside the database may leave them out. */
  Partial<Pick<Model, 'org_id' | 'app_id' | 'api_target' | 'api_key_sealed'>>;

/** A custom model (an organization's or a Space's) with a base URL is called at that URL, with its own key. */
function endpointOf(row: RoutableRow): ModelEndpoint | undefined {
  const custom = (row.org_id ?? null) !== null || (row.app_id ?? null) !== null;
  return custom && row.api_target ? { baseUrl: row.api_target, sealedApiKey: row.api_key_sealed ?? null } : undefined;
}

export function toRoutableModel(row: RoutableRow): RoutableModel {
  return {
    id: row.id,
    model: row.model,
    provider: row.provider,
    namespace: row.namespace,
    owner: row.owner,
    at: row.at,
    contextWindow: row.context_window,
    promptTokenCost: row.prompt_token_cost,
    completionTokenCost: row.completion_token_cost,
    baseCost: row.base_cost,
    supports: {
      functions: row.supports_functions,
      json: row.supports_json,
      vision: row.supports_vision,
      stream: row.supports_stream,
      n: row.supports_n,
      penalties: row.supports_penalties,
      reasoning: row.supports_reasoning,
    },
    isGdpr: row.is_gdpr,
    deprecatedOn: row.deprecated_on,
    until: row.until,
    quality: qualityProfile.parse(row.quality_profile),
    endpoint: endpointOf(row),
  };
}

/**
 * Prisma reads a Space's links and their models in separate queries: a model deleted between them (a
 * custom model removed while the Space is read) leaves a link without its model, which names nothing.
 */
const linked = (link: { model: unknown }): boolean => (link.model as unknown) !== null && link.model !== undefined;

async function load(db: Db, appId: string): Promise<SpaceContext | null> {
  const app = await readSpaceRows(db, appId);
  if (!app) return null;
  const byName = (a: RoutableModel, b: RoutableModel) => a.model.localeCompare(b.model);
  const models = app.models
    .filter((link) => linked(link) && link.model.is_chat)
    .map((link) => toRoutableModel(link.model))
    .sort(byName);
  const embeddingModels = app.models
    .filter((link) => linked(link) && !link.model.is_chat)
    .map((link) => toRoutableModel(link.model))
    .sort(byName);
  const benchmark = app.benchmark_model ? toRoutableModel(app.benchmark_model) : null;
  const settings = readSettings(app.settings);
  return {
    id: app.id,
    orgId: app.org_id,
    isActive: app.is_active,
    rateLimit: app.rate_limit,
    isSandbox: app.sandbox_of !== null,
    dataSpaceId: app.use_parent_custom_data && app.sandbox_of ? app.sandbox_of : app.id,
    weights: readWeights(app.weights),
    policies: readPolicies(app.policies),
    settings,
    autoTools: autoToolsSettings.catch(autoToolsSettings.parse({})).parse(settings.auto_tools ?? {}),
    hasFailoverChain: app.has_failover_chain,
    models,
    embeddingModels,
    // A chat request never fails over to an embedding model.
    failoverChain: app.failover_chain
      .filter((link) => linked(link) && !link.model.globally_disabled && link.model.is_chat)
      .map((link) => toRoutableModel(link.model)),
    benchmark,
    embeddingBenchmark: app.benchmark_model && !app.benchmark_model.is_chat ? benchmark : null,
  };
}

/**
 * Space contexts reused by the API and the worker (one loader per process, shared by both roles), so a
 * busy Space costs one query per interval. The API reads the Space's version stamp for each request
 * (SpaceVersions) and hands it on in the job: a context loaded at another stamp is loaded again, so a
 * configuration change applies to every request accepted after it, in every process.
 */
export class SpaceContextLoader {
  private readonly cache: TtlCache<SpaceContext | null>;

  constructor(
    private readonly db: Db,
    ttlMs: number,
  ) {
    this.cache = new TtlCache(ttlMs);
  }

  load(appId: string, stamp?: string): Promise<SpaceContext | null> {
    return this.cache.get(appId, () => load(this.db, appId), { stamp });
  }

  /** The context this process loaded last for the Space, with its stamp, while fresh; the stamp is the caller's to confirm. */
  loaded(appId: string): { space: SpaceContext | null; stamp: string } | null {
    const entry = this.cache.peek(appId);
    // Loaded without a stamp: not known to be at any.
    return entry && entry.stamp !== undefined ? { space: entry.value, stamp: entry.stamp } : null;
  }
}
