import type { Unavailability } from '../../domain/model-availability';
import { isRetired, type RoutableModel } from '../../domain/routable-model';
import type { Model } from '../../generated/prisma/client';
import { toRoutableModel } from '../../store/space-context';
import type { ProviderRegistry } from '../../providers/registry';

/** What availability reads of the provider registry: why a model's provider cannot be called. */
export type ProviderExplainer = Required<Pick<ProviderRegistry, 'explain'>>;

/** A model's state beside the catalog row: switched off service-wide, switched on in the Space. */
export interface ModelState {
  globallyDisabled: boolean;
  /** False when the model is off in the Space the list is for. */
  active: boolean;
}

/**
 * Whether a model can answer now, and why not: the reason a client most needs first (switched off for
 * everyone, then the provider's configuration, then the catalog's dates, then the Space's switch).
 * The provider part comes from the registry, which read the configuration once for the process.
 */
export class ModelAvailability {
  constructor(private readonly providers: ProviderExplainer) {}

  of(model: RoutableModel, state: ModelState, now: Date = new Date()): Unavailability | null {
    if (state.globallyDisabled) return { code: 'globally_disabled', message: 'switched off for every Space by a service owner' };
    const provider = this.providers.explain(model);
    if (provider) return provider;
    if (isRetired(model, now)) return { code: 'retired', message: `retired on ${model.until?.toISOString().slice(0, 10) ?? 'an earlier date'}` };
    if (!state.active) return { code: 'not_active_in_space', message: 'not switched on in this Space' };
    return null;
  }

  /** The same for a stored catalog or custom model row. */
  ofRow(row: Model, active: boolean, now: Date = new Date()): Unavailability | null {
    return this.of(toRoutableModel(row), { globallyDisabled: row.globally_disabled, active }, now);
  }
}
