import type { ChatRequest } from '../domain/chat';
import type { RoutableModel } from '../domain/routable-model';
import type { Provider } from '../providers/types';
import { fitReasoning } from './fit-reasoning';
import type { PreparedCompletion } from './prepare-request';

export interface FittedRequest {
  request: ChatRequest;
  /** Sentences for `metadata.warning` about what was changed to fit the model. */
  notes: string[];
}

/**
 * The request as one model gets it: its provider's model name, without the parameters the catalog says
 * it does not support, and with values brought into the provider's range. Each change is noted for
 * `metadata.warning` rather than failing the request.
 */
export function fitRequest(prepared: PreparedCompletion, model: RoutableModel, provider: Pick<Provider, 'maxTemperature' | 'fitReasoning'>): FittedRequest {
  const request: ChatRequest = { ...prepared.chat, model: model.namespace };
  const dropped: string[] = [];
  if (request.n !== undefined && request.n > 1 && !model.supports.n) {
    delete request.n;
    dropped.push('n');
  }
  if (!model.supports.penalties) {
    for (const key of ['presence_penalty', 'frequency_penalty'] as const) {
      if (request[key] !== undefined && request[key] !== 0) dropped.push(key);
      delete request[key];
    }
  }
  const notes = dropped.length > 0 ? [`Not supported by ${model.model} and left out: ${dropped.join(', ')}.`] : [];
  const maxTemperature = provider.maxTemperature;
  if (maxTemperature !== undefined && request.temperature !== undefined && request.temperature > maxTemperature) {
    notes.push(`temperature lowered from ${request.temperature} to ${maxTemperature}, the highest ${model.model} accepts.`);
    request.temperature = maxTemperature;
  }
  // Most requests ask nothing of reasoning: one test of an absent field.
  if (request.reasoning !== undefined) notes.push(...fitReasoning(request, model, provider));
  return { request, notes };
}
