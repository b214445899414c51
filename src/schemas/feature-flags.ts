import { z } from 'zod';

/** Flags a request (header or `custom_headers`) or a Space (`settings.feature_flags`) can switch. */
export const FEATURE_FLAGS = ['citations', 'auto_tools', 'smart_learn'] as const;
export type FeatureFlag = (typeof FEATURE_FLAGS)[number];

/** Known flags only, each a boolean; an unknown flag is a 400. */
export const featureFlagsSchema = z.partialRecord(z.enum(FEATURE_FLAGS), z.boolean());
export type FeatureFlags = z.infer<typeof featureFlagsSchema>;
