import { ApiError } from '../errors/api-error';
import { FEATURE_FLAGS, type FeatureFlag, type FeatureFlags } from './feature-flags';

export type { FeatureFlags };

const TRUE_VALUES = new Set(['true', '1', 'yes', 'on']);
const FALSE_VALUES = new Set(['false', '0', 'no', 'off', '']);

function flagValue(name: string, value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const lowered = value.trim().toLowerCase();
    if (TRUE_VALUES.has(lowered)) return true;
    if (FALSE_VALUES.has(lowered)) return false;
  }
  throw new ApiError('invalid_value', `Feature flag '${name}' must be "true" or "false".`, 'Service-Feature-Flags');
}

/** What a request without the header has: one frozen object for all of them (callers spread it, never write it). */
const NO_FLAGS: FeatureFlags = Object.freeze({});

/**
 * The `Service-Feature-Flags` header: a JSON object of flag names to strings such as "true".
 * Unknown flag names are ignored (newer clients may send flags this version does not know);
 * anything that is not such an object is a 400.
 */
export function parseFeatureFlagsHeader(header: string | undefined): FeatureFlags {
  if (header === undefined || header.trim() === '') return NO_FLAGS;
  let parsed: unknown;
  try {
    parsed = JSON.parse(header);
  } catch {
    throw new ApiError('invalid_value', 'Service-Feature-Flags must be a JSON object such as {"auto_tools": "true"}.', 'Service-Feature-Flags');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ApiError('invalid_value', 'Service-Feature-Flags must be a JSON object such as {"auto_tools": "true"}.', 'Service-Feature-Flags');
  }
  const flags: FeatureFlags = {};
  for (const [name, value] of Object.entries(parsed)) {
    if ((FEATURE_FLAGS as readonly string[]).includes(name)) flags[name as FeatureFlag] = flagValue(name, value);
  }
  return flags;
}

/** The body's `custom_headers.feature_flags` win over the header for the same flag. */
export function mergeFeatureFlags(header: FeatureFlags, body: FeatureFlags | undefined): FeatureFlags {
  return body === undefined ? { ...header } : { ...header, ...body };
}
