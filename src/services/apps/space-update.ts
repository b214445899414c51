import type { Prisma } from '../../generated/prisma/client';
import type { AuthContext } from '../../auth/auth-context';
import { ApiError } from '../../errors/api-error';
import type { UpdateAppBody } from '../../schemas/apps';
import { appStore, type AppRow } from '../../store/apps';
import type { Tx } from '../../store/db';
import { lockVisibleApp, markSandboxOutdated } from './space-access';
import { readPolicies, readSettings, readWeights } from '../../schemas/stored-space-config';
import { mergeConfig, type SpaceConfig, type SpaceConfigPatch } from './space-config';
import { scopeOf } from './space-detail';
import { checkReferences, type SpaceReferences } from './space-references';

export function referencesOf(body: SpaceConfigPatch & { benchmark_model_id?: string | null }, merged: SpaceConfig): SpaceReferences {
  return {
    benchmarkModelId: body.benchmark_model_id,
    promptId: body.policies?.prompt_id,
    assistantId: body.settings?.assistant_id,
    assistantVersionId: body.settings?.assistant_version_id,
    merged: { assistantId: merged.settings.assistant_id, assistantVersionId: merged.settings.assistant_version_id },
  };
}

function storedConfig(app: AppRow): SpaceConfig {
  return { weights: readWeights(app.weights), policies: readPolicies(app.policies), settings: readSettings(app.settings) };
}

function checkSandboxLink(app: AppRow, sandboxOf: string | null | undefined): void {
  if (sandboxOf === undefined || sandboxOf === app.sandbox_of) return;
  throw new ApiError(
    'invalid_value',
    `Invalid value for 'sandbox_of': a Space's sandbox link cannot be changed; it is ${app.sandbox_of === null ? 'null (a main Space)' : `'${app.sandbox_of}'`}. Create a sandbox with POST /v1/apps/{app_id}/sandbox.`,
    'sandbox_of',
  );
}

/**
 * Applies a partial update to a main Space or a sandbox, inside the caller's transaction. Only the
 * fields sent change; `weights`, `policies` and `settings` merge key by key. `policies.prompt_id`
 * also sets the Space's `prompt_id`, which `prompt` is presented from. Returns the main Space's id.
 */
export async function updateSpace(tx: Tx, auth: AuthContext, body: UpdateAppBody): Promise<string> {
  const app = await lockVisibleApp(tx, auth, { id: body.id, param: 'id' });
  checkSandboxLink(app, body.sandbox_of);
  const merged = mergeConfig(storedConfig(app), body);
  await checkReferences(tx, scopeOf(app), referencesOf(body, merged));
  await appStore.update(tx, app.id, {
    name: body.name,
    description: body.description,
    app_logo: body.app_logo,
    has_failover_chain: body.has_failover_chain,
    rate_limit: body.rate_limit === null ? 0 : body.rate_limit,
    use_parent_custom_data: body.use_parent_custom_data,
    benchmark_model_id: body.benchmark_model_id,
    weights: body.weights ? merged.weights : undefined,
    policies: body.policies ? merged.policies : undefined,
    settings: body.settings ? (merged.settings as Prisma.InputJsonObject) : undefined,
    prompt_id: body.policies?.prompt_id,
    modified_by: auth.idpId,
  });
  await markSandboxOutdated(tx, app);
  return app.sandbox_of ?? app.id;
}
