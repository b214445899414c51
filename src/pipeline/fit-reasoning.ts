import type { ChatRequest } from '../domain/chat';
import type { RoutableModel } from '../domain/routable-model';
import type { Provider } from '../providers/types';

/**
 * A request's reasoning (set) as one model gets it: left out, and said so, when the catalog says the
 * model takes no reasoning setting (asking for none of it, `none`, needs no word); else brought within
 * what its provider accepts (`Provider.fitReasoning`). Returns the sentences for `metadata.warning`.
 */
export function fitReasoning(request: ChatRequest, model: RoutableModel, provider: Pick<Provider, 'fitReasoning'>): string[] {
  const { reasoning } = request;
  if (reasoning === undefined) return [];
  if (!model.supports.reasoning) {
    delete request.reasoning;
    const askedNone = reasoning.effort === 'none' && reasoning.budgetTokens === undefined;
    return askedNone ? [] : [`${model.model} takes no reasoning setting: it answered without the request's reasoning_effort / thinking.`];
  }
  return provider.fitReasoning?.(request, model.model) ?? [];
}
