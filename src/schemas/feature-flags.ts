import { z } from 'zod';

import { FEATURE_FLAGS, type FeatureFlag, type FeatureFlags } from '../domain/space-policies';

export { FEATURE_FLAGS };
export type { FeatureFlag, FeatureFlags };

/** Known flags only, each a boolean; an unknown flag is a 400. */
export const featureFlagsSchema = z.partialRecord(z.enum(FEATURE_FLAGS), z.boolean());
featureFlagsSchema satisfies z.ZodType<FeatureFlags>;
