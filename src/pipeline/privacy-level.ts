import type { CompletionRequest } from '../schemas/chat-completions';

/**
 * The privacy level a request runs at: the stricter of the Space's and the request's own
 * (`custom_headers.policies.privacy_level`). A request can hide more, never less.
 */
export function effectivePrivacyLevel(spaceLevel: number, request: Pick<CompletionRequest, 'custom_headers'>): number {
  return Math.max(spaceLevel, request.custom_headers?.policies?.privacy_level ?? 1);
}
