import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import type { Model } from '../../src/generated/prisma/client';
import { MEDIA_SIM_KEY, startMediaSimulator, type MediaSimulator } from '../simulator/plugins/openai-media';
import { startMastodonSimulator, type MastodonSimulator } from '../simulator/plugins/mastodon';
import { startSearxngSimulator } from '../simulator/plugins/searxng';
import type { SearchSimulator } from '../simulator/plugins/search-server';
import { startSimulator, type Simulator } from '../simulator/server';
import { callsTo, eventually, isolatedSpace, type IsolatedSpace, type ModelSpec, type SpaceSetup } from './completion-fixtures';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from './completions';
import type { Tenant } from './test-context';

/** USD the simulated web search charges per query, so its cost shows in the logs. */
export const SEARCH_COST_USD = 0.002;
export const AUTO_TOOLS = { 'Service-Feature-Flags': '{"auto_tools":"true"}' };
/** The access token the Mastodon simulator accepts. */
export const MASTODON_TOKEN = 'sim-mastodon-token';

export interface PluginHarnessOptions {
  /** Leave the images backend without a key (the plugin is unavailable). */
  imagesUnconfigured?: boolean;
  /** Hosts the SSRF-safe client may reach besides the media simulator's. */
  extraAllowedHosts?: string[];
  /** Longest plugin run, in ms. */
  pluginTimeoutMs?: number;
  /** Extra service configuration, applied last. */
  overrides?: Partial<Config>;
}

export interface PluginEnv {
  sim: Simulator;
  searx: SearchSimulator;
  media: MediaSimulator;
  /** A Mastodon instance, allowed through the SSRF-safe client (accounts come from Space settings). */
  mastodon: MastodonSimulator;
  h: CompletionsHarness;
}

const hostOf = (url: string) => new URL(url).host;

/** The plugins' configuration pointed at the simulators: SearXNG for web search, the media simulator for images and transcription. */
function pluginConfig(env: Omit<PluginEnv, 'h'>, options: PluginHarnessOptions): Config['plugins'] {
  const base = loadConfig().plugins;
  const backend = { baseUrl: env.media.baseUrl, apiKey: MEDIA_SIM_KEY };
  return {
    ...base,
    net: { ...base.net, ssrfAllowedHosts: [hostOf(env.media.url), hostOf(env.mastodon.url), ...(options.extraAllowedHosts ?? [])], pluginCacheTtlSeconds: 600 },
    webSearch: { ...base.webSearch, backend: 'searxng', baseUrl: env.searx.url, apiKey: null, costUsd: SEARCH_COST_USD },
    spaceSearch: { ...base.spaceSearch, embeddings: null },
    media: {
      images: { ...base.media.images, ...backend, ...(options.imagesUnconfigured ? { apiKey: undefined } : {}) },
      transcribe: { ...base.media.transcribe, ...backend },
    },
    socialPost: { timeoutMs: 1500 },
  };
}

/**
 * For a test file: the provider simulator, a SearXNG and a media simulator, and the app with its
 * workers configured to use them (every plugin available unless told otherwise). Read the fields
 * inside tests.
 */
export function usePluginHarness(options: PluginHarnessOptions = {}): PluginEnv {
  const env = {} as PluginEnv;
  beforeAll(async () => {
    [env.sim, env.searx, env.media, env.mastodon] = await Promise.all([
      startSimulator(),
      startSearxngSimulator(),
      startMediaSimulator(),
      startMastodonSimulator({ token: MASTODON_TOKEN }),
    ]);
    env.h = startCompletionsHarness({
      providers: simulatedProviders(env.sim),
      plugins: pluginConfig(env, options),
      pluginTimeoutMs: options.pluginTimeoutMs ?? 1500,
      secrets: { keys: { current: randomBytes(32), previous: [] } },
      ...options.overrides,
    });
  });
  afterEach(() => {
    env.searx.faults.reset();
    env.searx.faults.defaultDelayMs = 0;
    env.mastodon.faults.reset();
  });
  afterAll(async () => {
    await env.h.close();
    await Promise.all([env.sim.close(), env.searx.close(), env.media.close(), env.mastodon.close()]);
  });
  return env;
}

/** A fresh Space answering with one custom model (`answering`), optionally set up further. */
export function pluginSpace(
  env: PluginEnv,
  setup: Partial<SpaceSetup<'answering'>> & Omit<Partial<ModelSpec>, 'name'> = {},
): Promise<IsolatedSpace<'answering'>> {
  const { namespace, gdpr, update, chain, benchmark } = setup;
  return isolatedSpace(env.h, { models: [{ name: 'answering', ...(namespace ? { namespace } : {}), ...(gdpr ? { gdpr } : {}) }], update, chain, benchmark });
}

/** The chat bodies the model received, in order. */
export function upstreamBodies(env: PluginEnv, model: Model): { messages: { role: string; content: unknown }[]; tools?: { function: { name: string } }[] }[] {
  return callsTo(env.sim, model).map((call) => call.body as ReturnType<typeof upstreamBodies>[number]);
}

/** SearXNG requests whose query contains `text`. */
export function searchesFor(env: PluginEnv, text: string): number {
  return env.searx.requests.filter((r) => (r.params.q ?? '').includes(text)).length;
}

/** Uploads a text file to the Space and waits until it is indexed. */
export async function uploadReadyFile(h: CompletionsHarness, tenant: Tenant, { name, text }: { name: string; text: string }): Promise<string> {
  const res = await request(h.app).post(`/v1/apps/${tenant.app_id}/files`).set(tenant.auth).attach('file', Buffer.from(text), name);
  expect(res.status).toBe(201);
  const id = res.body.id as string;
  await eventually(async () => {
    const got = await request(h.app).get(`/v1/apps/${tenant.app_id}/files/${id}`).set(tenant.auth);
    if (got.body.status === 'failed') throw new Error(`ingestion failed: ${JSON.stringify(got.body)}`);
    return got.body.status === 'ready' ? true : null;
  });
  return id;
}

/** The `settings` of `PUT /v1/apps/update` that give a Space the Mastodon simulator's account. */
export function mastodonSettings(env: PluginEnv, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const account = { instance_url: env.mastodon.url, access_token: MASTODON_TOKEN, visibility: 'unlisted' };
  return { plugins: { 'social-post': { network: 'mastodon', mastodon: account, ...extra } } };
}

/** `PUT /v1/apps/update` of the tenant's Space. */
export function updateSpace(h: CompletionsHarness, tenant: Tenant, body: object) {
  return request(h.app)
    .put('/v1/apps/update')
    .set(tenant.auth)
    .send({ id: tenant.app_id, ...body });
}

export interface PluginReportView {
  id: string;
  trigger: string;
  reason: string;
  status: string;
  cost: number;
  error?: string;
}

/** `metadata.extra.plugins` of a response body. */
export function pluginReports(body: unknown): PluginReportView[] {
  return (body as { metadata?: { extra?: { plugins?: PluginReportView[] } } }).metadata?.extra?.plugins ?? [];
}
