import type { AuthContext } from '../../auth/auth-context';
import type { SpaceVersions } from '../../cache/space-versions';
import { ApiError } from '../../errors/api-error';
import type { ModelActiveForAppView, ModelView } from '../../schemas/models';
import { inTransaction, type Db } from '../../store/db';
import { modelStore, type ModelWithParent } from '../../store/models';
import type { ModelAvailability } from '../models/model-availability';
import { presentModel, presentModelForApp } from './present-model';
import { findVisibleApp, lockVisibleApp, markSandboxOutdated } from './space-access';
import { loadSpaceModels, scopeOf, type SpaceModels } from './space-detail';

function invalidChainLink(index: number, why: string): ApiError {
  const param = `model_ids[${index}]`;
  return new ApiError('invalid_value', `Invalid value for '${param}': ${why}.`, param);
}

export interface AppModelRef {
  appId: string;
  modelId: string;
}

/** Which models a Space uses and in what failover order; a change applies to the next request. */
export class AppModelService {
  constructor(
    private readonly db: Db,
    private readonly deps: { versions: SpaceVersions; availability: ModelAvailability },
  ) {}

  /** Every model the Space can see, each with its state there and whether it can answer now (and why not). */
  async list(auth: AuthContext, appId: string): Promise<SpaceModels> {
    return loadSpaceModels(this.db, await findVisibleApp(this.db, auth, { id: appId, param: 'app_id' }), this.deps.availability);
  }

  /**
   * Switches a model on or off in a Space. A globally disabled model cannot be switched on, and a
   * model in the failover chain cannot be switched off: the chain holds active models only.
   */
  async setActive(auth: AuthContext, { appId, modelId }: AppModelRef, active: boolean): Promise<ModelActiveForAppView> {
    const view = await inTransaction(this.db, async (tx) => {
      const app = await lockVisibleApp(tx, auth, { id: appId, param: 'app_id' });
      await modelStore.hold(tx, [modelId]);
      const model = await modelStore.findVisible(tx, scopeOf(app), modelId);
      if (!model) throw ApiError.notFound('Model', 'model_id');
      if (active && model.globally_disabled) {
        throw new ApiError('invalid_state_transition', `Model '${model.model}' is globally disabled by a service owner and cannot be activated.`, 'active');
      }
      const link = active ? null : await modelStore.findFailoverLink(tx, app.id, model.id);
      if (link) {
        throw new ApiError(
          'invalid_state_transition',
          `Model '${model.model}' is in the failover chain at position ${link.position}; remove it from the chain (PUT /v1/apps/{app_id}/failover) before deactivating it.`,
          'active',
        );
      }
      await modelStore.setActive(tx, { app_id: app.id, model_id: model.id, active });
      await markSandboxOutdated(tx, app);
      return presentModelForApp(model, { active, unavailable: this.deps.availability.reasonsOfRow(model, active) });
    });
    await this.deps.versions.bump([appId]);
    return view;
  }

  /**
   * Replaces the failover chain. Every link must be available to the Space, active in it and not
   * globally disabled. Whether the chain is used is the Space's `has_failover_chain` switch, which
   * this does not touch.
   */
  async setFailover(auth: AuthContext, appId: string, modelIds: string[]): Promise<{ failover_models: ModelView[] }> {
    const chain = await inTransaction(this.db, async (tx) => {
      const app = await lockVisibleApp(tx, auth, { id: appId, param: 'app_id' });
      await modelStore.hold(tx, modelIds);
      const models = await modelStore.listVisible(tx, scopeOf(app), modelIds);
      const states = await modelStore.activeStates(tx, app.id);
      const byId = new Map(models.map((model) => [model.id, model]));
      const chain = modelIds.map((id, index): ModelWithParent => {
        const model = byId.get(id);
        if (!model) throw invalidChainLink(index, 'no model with this id is available to this Space');
        if (model.globally_disabled) throw invalidChainLink(index, `model '${model.model}' is globally disabled`);
        if (states.get(id) !== true) throw invalidChainLink(index, `model '${model.model}' is not active in this Space; activate it first`);
        return model;
      });
      await modelStore.replaceFailoverChain(tx, app.id, modelIds);
      await markSandboxOutdated(tx, app);
      return { failover_models: chain.map(presentModel) };
    });
    await this.deps.versions.bump([appId]);
    return chain;
  }
}
