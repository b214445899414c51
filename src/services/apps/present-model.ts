import type { Unavailability } from '../../domain/model-availability';
import type { Model } from '../../generated/prisma/client';
import type { ModelActiveForAppView, ModelCoreView, ModelView } from '../../schemas/models';
import type { ModelWithParent } from '../../store/models';

export type { ModelWithParent };

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

function presentCore(row: Model): ModelCoreView {
  return {
    id: row.id,
    model: row.model,
    provider: row.provider,
    owner: row.owner,
    namespace: row.namespace,
    at: row.at,
    context_window: row.context_window,
    until: iso(row.until),
    deprecated_on: iso(row.deprecated_on),
    description: row.description,
    url: row.url,
    api_target: row.api_target,
    parent_id: row.parent_id,
    prompt_id: row.prompt_id,
    app_id: row.app_id,
    org_id: row.org_id,
    added_by: row.added_by,
    added_on: row.added_on.toISOString(),
    modified_on: row.modified_on.toISOString(),
    supports_functions: row.supports_functions,
    supports_json: row.supports_json,
    supports_n: row.supports_n,
    supports_penalties: row.supports_penalties,
    supports_stream: row.supports_stream,
    supports_vision: row.supports_vision,
    supports_reasoning: row.supports_reasoning,
    prompt_token_cost: row.prompt_token_cost,
    completion_token_cost: row.completion_token_cost,
    base_cost: row.base_cost,
    price_unit: row.price_unit,
    is_rag: row.is_rag,
    is_ft: row.is_ft,
    is_open_source: row.is_open_source,
    is_gdpr: row.is_gdpr,
    is_chat: row.is_chat,
    is_public: row.is_public,
    is_test_model: row.is_test_model,
    is_service_owner: row.is_service_owner,
    default_active: row.default_active,
  };
}

/**
 * The Model of the contract. `parent` is the parent presented without its own parent, or `{}`
 * when the row has no parent or it was not loaded; load it with `include: { parent: true }`.
 * `quality_profile` and `globally_disabled` are internal and not part of this shape.
 */
export function presentModel(row: ModelWithParent): ModelView {
  return { ...presentCore(row), parent: row.parent ? presentCore(row.parent) : {} };
}

/** A model as seen from one Space: its identity, the full model, whether it is on there and whether it can answer now. */
export function presentModelForApp(
  row: ModelWithParent,
  { active, unavailable }: { active: boolean; unavailable: readonly Unavailability[] },
): ModelActiveForAppView {
  const model = presentModel(row);
  return {
    id: model.id,
    model: model.model,
    provider: model.provider,
    owner: model.owner,
    namespace: model.namespace,
    at: model.at,
    context_window: model.context_window,
    until: model.until,
    deprecated_on: model.deprecated_on,
    description: model.description,
    url: model.url,
    api_target: model.api_target,
    parent_id: model.parent_id,
    prompt_id: model.prompt_id,
    parent: model,
    active,
    globally_disabled: row.globally_disabled,
    available: unavailable.length === 0,
    unavailable_reason: unavailable[0] ?? null,
    unavailable_reasons: [...unavailable],
  };
}
