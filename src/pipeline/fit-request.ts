import type { ChatRequest } from '../domain/chat';
import type { RoutableModel } from '../domain/routable-model';
import type { PreparedCompletion } from './prepare-request';

export interface FittedRequest {
  request: ChatRequest;
  /** Parameters dropped because the model does not support them. */
  dropped: string[];
}

/**
 * The request as one model gets it: its provider's model name, without the parameters the catalog
 * says it does not support (noted in `metadata.warning` rather than failing the request).
 */
export function fitRequest(prepared: PreparedCompletion, model: RoutableModel): FittedRequest {
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
  return { request, dropped };
}
