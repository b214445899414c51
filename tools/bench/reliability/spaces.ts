import { randomBytes } from 'node:crypto';
import { bootstrapTenant } from '../../../src/services/tenancy/bootstrap';
import type { Db } from '../../../src/store/db';
import { send } from './http-client';

/** A model of the Space, served by the simulator's OpenAI dialect under a name of its own. */
export interface ModelSpec {
  /** Short role name within the row ("primary", "fallback"). */
  role: string;
  /** Catalog quality; the Space ranks on quality alone, so the higher one is tried first. */
  quality: number;
  /** Privacy level 3 routes only to GDPR models. */
  gdpr?: boolean;
}

export interface SpaceSetup {
  /** Row name, part of the organization's and models' names. */
  row: string;
  models: ModelSpec[];
  /** Roles of the failover chain, in order; the Space's chain switch is on when given. */
  chain?: string[];
  policies?: Record<string, unknown>;
}

export interface RowSpace {
  orgId: string;
  appId: string;
  apiKey: string;
  /** Upstream name (what the simulator sees in `model`) of each role; script faults on it. */
  upstreamName: Record<string, string>;
  /** Model row id of each role. */
  modelId: Record<string, string>;
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/(^-|-$)/g, '');

async function putJson(url: string, apiKey: string, body: object): Promise<void> {
  const res = await send({
    method: 'PUT',
    url,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    timeoutMs: 10_000,
  });
  if (res.status !== 200) throw new Error(`PUT ${url} answered ${res.status ?? res.error}: ${res.body.slice(0, 300)}`);
}

/**
 * A fresh organization whose Space has only the row's custom models active, ranked by quality alone, and
 * configured through the API (as an operator would) before its first completion, so no process has it cached.
 */
export async function createRowSpace(db: Db, apiUrl: string, setup: SpaceSetup): Promise<RowSpace> {
  const unique = `${slug(setup.row)}-${randomBytes(3).toString('hex')}`;
  const tenant = await bootstrapTenant(db, { org: `reliability-${unique}`, space: setup.row, rateLimit: 0 });
  await db.appModel.updateMany({ where: { app_id: tenant.app_id }, data: { active: false } });
  const upstreamName: Record<string, string> = {};
  const modelId: Record<string, string> = {};
  for (const spec of setup.models) {
    const namespace = `rel-${unique}-${spec.role}`;
    const row = await db.model.create({
      data: {
        model: namespace,
        provider: 'openai',
        namespace,
        org_id: tenant.org_id,
        prompt_token_cost: 1e-6,
        completion_token_cost: 2e-6,
        context_window: 128_000,
        is_gdpr: spec.gdpr ?? false,
        supports_functions: true,
        supports_json: true,
        quality_profile: { overall: spec.quality, categories: {} },
      },
    });
    await db.appModel.create({ data: { app_id: tenant.app_id, model_id: row.id, active: true } });
    upstreamName[spec.role] = namespace;
    modelId[spec.role] = row.id;
  }
  const update = {
    id: tenant.app_id,
    weights: { quality: 1, cost: 0, latency: 0 },
    ...(setup.policies ? { policies: setup.policies } : {}),
    ...(setup.chain ? { has_failover_chain: true } : {}),
  };
  await putJson(`${apiUrl}/v1/apps/update`, tenant.api_key, update);
  if (setup.chain) {
    const ids = setup.chain.map((role) => modelId[role] ?? '');
    await putJson(`${apiUrl}/v1/apps/${tenant.app_id}/failover`, tenant.api_key, { model_ids: ids });
  }
  return { orgId: tenant.org_id, appId: tenant.app_id, apiKey: tenant.api_key, upstreamName, modelId };
}
