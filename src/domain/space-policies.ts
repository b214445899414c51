/**
 * What a Space (and, per request, `custom_headers`) sets for its completions, as the core reads it. The
 * public zod schemas (`schemas/apps.ts`, `schemas/feature-flags.ts`) validate the same shapes at the edge.
 */

/** How much the router values low cost, low latency and high quality, each 0 to 1. */
// Type aliases, not interfaces: stored as JSON columns, they need an implicit index signature.
export type Weights = {
  cost: number;
  latency: number;
  quality: number;
};

export type Policies = {
  /** 1 everything logged; 2 request and response masked; 3 nothing stored. */
  privacy_level: number;
  /** USD a single request may cost at most; null for no limit. */
  max_cost: number | null;
  max_switch_model_retries: number;
  max_same_model_retries: number;
  optimize_internal_requests: number;
  prompt_id: string | null;
  /** Longest wait for an upstream's first byte, in ms; absent: the service's default. */
  first_byte_timeout_ms?: number;
  /** Longest upstream call, in ms; absent: the service's default. */
  upstream_timeout_ms?: number;
};

/** Flags a request (header or `custom_headers`) or a Space (`settings.feature_flags`) can switch. */
export const FEATURE_FLAGS = ['citations', 'auto_tools', 'smart_learn'] as const;
export type FeatureFlag = (typeof FEATURE_FLAGS)[number];
export type FeatureFlags = Partial<Record<FeatureFlag, boolean>>;
