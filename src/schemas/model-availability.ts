import { z } from 'zod';
import { UNAVAILABLE_CODES } from '../domain/model-availability';

/** Why a listed model cannot answer now (`src/domain/model-availability.ts` describes each code). */
export const unavailableReasonSchema = z
  .object({
    code: z
      .enum(UNAVAILABLE_CODES)
      .describe(
        'Stable code: provider_key_missing, provider_unknown, custom_model_key_unreadable, custom_model_endpoint_refused, globally_disabled, retired, not_active_in_space, not_allowed_for_key, no_model_available.',
      ),
    message: z.string().describe("For people, e.g. 'OPENAI_API_KEY is not set'."),
  })
  .meta({ id: 'UnavailableReason' });

/** The fields every model listing carries. */
export const availabilityFields = {
  available: z.boolean().describe('Whether a request naming this model can be answered now.'),
  unavailable_reason: unavailableReasonSchema.nullable().describe('Why not, when `available` is false: the reason to mend first; null otherwise.'),
  unavailable_reasons: z
    .array(unavailableReasonSchema)
    .describe(
      'Every reason it cannot answer now, the one to mend first leading (a model off in the Space whose provider has no key has both); empty when it can.',
    ),
};
