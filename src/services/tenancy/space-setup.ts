import { ApiError } from '../../errors/api-error';
import { appStore } from '../../store/apps';
import type { Tx } from '../../store/db';
import { modelStore } from '../../store/models';
import { tenancyStore } from '../../store/tenancy';
import { markSandboxOutdated } from '../apps/space-access';

/** The ids of public catalog models named by an operator; an unknown or disabled name is a usage error naming it. */
export async function catalogModelIds(tx: Tx, names: readonly string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const found = new Map((await tenancyStore.findCatalogModels(tx, names)).map((model) => [model.model, model]));
  return [...new Set(names)].map((name) => {
    const model = found.get(name);
    if (!model) {
      throw new ApiError('not_found', `Model '${name}' is not in the model catalog: check the name, or load the catalog with \`npm run db:seed\`.`, 'activate');
    }
    if (model.globally_disabled) {
      throw new ApiError('invalid_state_transition', `Model '${name}' is globally disabled by a service owner and cannot be activated.`, 'activate');
    }
    return model.id;
  });
}

export interface SpaceOptions {
  app: { id: string; sandbox_of: string | null };
  /** Recorded as the Space's last modifier when its row changes. */
  idpId: string;
  /** Requests per minute to set; undefined leaves the Space's limit as it is. */
  rateLimit: number | undefined;
  /** Models to switch on in the Space (those already on are left alone). */
  modelIds: readonly string[];
}

/**
 * Brings a Space in line with what the operator asked for. Changes go through the same lock and
 * sandbox bookkeeping as the API's own Space updates, so a sandbox copy is marked outdated.
 */
export async function applySpaceOptions(tx: Tx, { app, idpId, rateLimit, modelIds }: SpaceOptions): Promise<void> {
  await appStore.lock(tx, app.id);
  const states = await modelStore.activeStates(tx, app.id);
  const notYetOn = modelIds.filter((id) => states.get(id) !== true);
  if (rateLimit === undefined && notYetOn.length === 0) return;
  if (rateLimit !== undefined) await appStore.update(tx, app.id, { rate_limit: rateLimit, modified_by: idpId });
  for (const modelId of notYetOn) await modelStore.setActive(tx, { app_id: app.id, model_id: modelId, active: true });
  await markSandboxOutdated(tx, app);
}
