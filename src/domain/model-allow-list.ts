import type { RoutableModel } from './routable-model';

/**
 * A key's allow-list of models: entries name a model as `GET /v1/models` lists it (`model`), or as
 * `provider/namespace`, the two names a request may use. Absent (null) for a key without a list: callers
 * test for null first, so such a key costs nothing.
 */
export type ModelAllowList = readonly string[];

export function modelAllowed(model: Pick<RoutableModel, 'model' | 'provider' | 'namespace'>, allowed: ModelAllowList): boolean {
  return allowed.includes(model.model) || allowed.includes(`${model.provider}/${model.namespace}`);
}

/** The models of a list the key may call, in their order. */
export function allowedOnly<M extends Pick<RoutableModel, 'model' | 'provider' | 'namespace'>>(models: readonly M[], allowed: ModelAllowList): M[] {
  return models.filter((model) => modelAllowed(model, allowed));
}
