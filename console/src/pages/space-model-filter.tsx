import type { SpaceDetailView } from '../../../src/schemas/apps';

export type ModelSetting = SpaceDetailView['base_model_settings'][number];

export const AVAILABILITY_FILTERS = ['all', 'available', 'unavailable'] as const;
export type AvailabilityFilter = (typeof AVAILABILITY_FILTERS)[number];

const LABELS: Record<AvailabilityFilter, string> = { all: 'All', available: 'Available', unavailable: 'Unavailable' };

/** Whether a request naming the model can be answered now: switched on in the Space, and nothing else stops it. */
export const canAnswer = (model: ModelSetting): boolean => model.available;

/**
 * 0: can answer now; 1: would, once switched on in the Space; 2: cannot (its provider has no key, it is
 * retired, disabled by the service, ...). Switching a model on or off moves it between the first two only.
 */
function rank(model: ModelSetting): number {
  if (canAnswer(model)) return 0;
  return model.unavailable_reasons.every((reason) => reason.code === 'not_active_in_space') ? 1 : 2;
}

/** The models the filter keeps, those that can answer first, then those that would once on (each group in the API's order). */
export function shownModels(models: ModelSetting[], filter: AvailabilityFilter): ModelSetting[] {
  const kept = filter === 'all' ? models : models.filter((model) => canAnswer(model) === (filter === 'available'));
  return kept
    .map((model, index) => ({ model, index, rank: rank(model) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ model }) => model);
}

/** All / Available / Unavailable, each with its count: a Space whose providers have no key lists mostly models that cannot answer. */
export function AvailabilityFilterButtons({
  models,
  value,
  onChange,
}: {
  models: ModelSetting[];
  value: AvailabilityFilter;
  onChange(filter: AvailabilityFilter): void;
}) {
  return (
    <div role="group" aria-label="Show models" class="availability-filter">
      {AVAILABILITY_FILTERS.map((filter) => (
        <button
          key={filter}
          type="button"
          class={filter === value ? 'secondary' : 'secondary outline'}
          aria-pressed={filter === value}
          onClick={() => onChange(filter)}
        >
          {LABELS[filter]} ({shownModels(models, filter).length})
        </button>
      ))}
    </div>
  );
}
