import { z } from 'zod';
import { ApiError } from '../../errors/api-error';
import type { QualityInput } from '../../schemas/custom-models';
import { customModelStore } from '../../store/custom-models';
import type { Tx } from '../../store/db';

/** The stored shape the router reads (see toRoutableModel): probabilities overall and per kind. */
export interface StoredQuality {
  overall: number;
  categories: Record<string, number>;
}

const storedQuality = z.object({ overall: z.number(), categories: z.record(z.string(), z.number()).default({}) });

/**
 * The quality profile a custom model is routed with. `like` copies another model's profile, so a
 * fine-tuned Llama can say "about as good as llama-3.1-8b-instant"; figures are stored as given (a
 * kind left out is scored with `overall` by the router).
 */
export async function resolveQuality(tx: Tx, { orgId, input }: { orgId: string; input: QualityInput }): Promise<StoredQuality> {
  if (!('like' in input)) return { overall: input.overall, categories: { ...input.categories } as Record<string, number> };
  const source = await customModelStore.findProfileSource(tx, { orgId, name: input.like });
  const parsed = source ? storedQuality.safeParse(source.quality_profile) : null;
  if (!parsed?.success) {
    throw new ApiError(
      'invalid_value',
      `Invalid value for 'quality.like': no model named '${input.like}' with a quality profile is available to this organization.`,
      'quality.like',
    );
  }
  return parsed.data;
}

export function readStoredQuality(json: unknown): StoredQuality {
  const parsed = storedQuality.safeParse(json);
  return parsed.success ? parsed.data : { overall: 0.5, categories: {} };
}
