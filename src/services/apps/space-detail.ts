import type { AuthContext } from '../../auth/auth-context';
import { ApiError } from '../../errors/api-error';
import type { SpaceDetailView, SpacePairView } from '../../schemas/apps';
import type { ModelActiveForAppView, ModelView } from '../../schemas/models';
import { appStore, type AppRow } from '../../store/apps';
import type { Tx } from '../../store/db';
import { modelStore, type ModelScope, type ModelWithParent } from '../../store/models';
import type { ModelAvailability } from '../models/model-availability';
import { presentModel, presentModelForApp } from './present-model';
import { presentSpace } from './present-space';

/** The models a Space may use: the catalog, its organization's, its own and, for a sandbox, its main Space's. */
export function scopeOf(app: Pick<AppRow, 'id' | 'org_id' | 'sandbox_of'>): ModelScope {
  return { orgId: app.org_id, appIds: app.sandbox_of ? [app.id, app.sandbox_of] : [app.id] };
}

export interface SpaceModels {
  active_models: number;
  base_model_settings: ModelActiveForAppView[];
  custom_model_settings: ModelActiveForAppView[];
  failover_models: ModelView[];
}

/** Who reads a Space, and how the models' availability is judged (the process's provider configuration). */
export interface SpaceReader {
  auth: AuthContext;
  availability: ModelAvailability;
}

/** A model without a row in the Space is off there. */
function withStates(models: ModelWithParent[], states: Map<string, boolean>, availability: ModelAvailability): ModelActiveForAppView[] {
  const now = new Date();
  return models.map((model) => {
    const active = states.get(model.id) ?? false;
    return presentModelForApp(model, { active, unavailable: availability.reasonsOfRow(model, active, now) });
  });
}

/** Sequential on purpose: inside a transaction all queries share one connection. */
export async function loadSpaceModels(tx: Tx, app: AppRow, availability: ModelAvailability): Promise<SpaceModels> {
  const scope = scopeOf(app);
  const base = await modelStore.listPublic(tx);
  const custom = await modelStore.listCustom(tx, scope);
  const states = await modelStore.activeStates(tx, app.id);
  const activeCount = await modelStore.countUsable(tx, app.id);
  const chain = await modelStore.failoverChain(tx, app.id);
  return {
    active_models: activeCount,
    base_model_settings: withStates(base, states, availability),
    custom_model_settings: withStates(custom, states, availability),
    failover_models: chain.map(presentModel),
  };
}

export async function loadSpaceDetail(tx: Tx, { auth, availability }: SpaceReader, app: AppRow): Promise<SpaceDetailView> {
  return { app: presentSpace(app, auth), ...(await loadSpaceModels(tx, app, availability)), current_user_permissions: [...auth.permissions] };
}

/** A main Space with its sandbox, as the update and sandbox endpoints answer. */
export async function loadSpacePair(tx: Tx, reader: SpaceReader, mainId: string): Promise<SpacePairView> {
  const main = await appStore.findById(tx, mainId);
  const sandbox = await appStore.findSandboxOf(tx, mainId);
  if (!main) throw ApiError.notFound('Space', 'id');
  return {
    main: await loadSpaceDetail(tx, reader, main),
    sandbox: sandbox ? await loadSpaceDetail(tx, reader, sandbox) : null,
    sandbox_status: main.sandbox_status,
  };
}
