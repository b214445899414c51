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
 * Whether a model can answer now, and every reason why not, the one a client most needs first (switched
 * off for everyone, then the provider's configuration, then the catalog's dates, then the Space's
 * switch): a model off in the Space whose provider has no key needs both mended. The provider part comes
 * from the registry, which read the configuration once for the process.
 */
export class ModelAvailability {
  constructor(private readonly providers: ProviderExplainer) {}

  /** Every reason, most needed first; empty when the model can answer. */
  reasons(model: RoutableModel, state: ModelState, now: Date = new Date()): Unavailability[] {
    const reasons: Unavailability[] = [];
    if (state.globallyDisabled) reasons.push({ code: 'globally_disabled', message: 'switched off for every Space by a service owner' });
    const provider = this.providers.explain(model);
    if (provider) reasons.push(provider);
    if (isRetired(model, now)) reasons.push({ code: 'retired', message: `retired on ${model.until?.toISOString().slice(0, 10) ?? 'an earlier date'}` });
    if (!state.active) reasons.push({ code: 'not_active_in_space', message: 'not switched on in this Space' });
    return reasons;
  }

  /** The reason a client most needs first, or null when the model can answer. */
  of(model: RoutableModel, state: ModelState, now: Date = new Date()): Unavailability | null {
    return this.reasons(model, state, now)[0] ?? null;
  }

  /** Every reason for a stored catalog or custom model row. */
  reasonsOfRow(row: Model, active: boolean, now: Date = new Date()): Unavailability[] {
    return this.reasons(toRoutableModel(row), { globallyDisabled: row.globally_disabled, active }, now);
  }
}
