import { decideCompletion, privacyOf } from '../../src/intake/decide-completion';
import type { FeatureFlags } from '../../src/domain/space-policies';
import type { CompletionJob } from '../../src/queue/payloads';
import { completionRequestSchema } from '../../src/schemas/chat-completions';
import type { SpaceContext } from '../../src/store/space-context';
import { spaceContext } from './space-context';

/** The decided parts of a job (request, privacy level, payload) for a wire body, as the intake makes them. */
export function decidedJobParts(
  body: Record<string, unknown>,
  { space = spaceContext(), headerFlags = {}, autoModelName = 'auto' }: { space?: SpaceContext; headerFlags?: FeatureFlags; autoModelName?: string } = {},
): Pick<CompletionJob, 'request' | 'privacyLevel' | 'payload'> {
  const wire = completionRequestSchema.parse(body);
  const { request, privacy, payload } = decideCompletion(wire, { space, privacy: privacyOf(space, wire), headerFlags, autoModelName });
  return { request, privacyLevel: privacy.level, payload };
}
