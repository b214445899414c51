/**
 * Why a model cannot answer now, as stable codes (for programs) beside a sentence (for people).
 * Listings (`GET /v1/models?all=true`, a Space's models, the console, `cli models list`) and the
 * errors of requests naming such a model give the same code and text.
 */
export const UNAVAILABLE_CODES = [
  /** The model's provider has no API key configured (`<PROVIDER>_API_KEY`). */
  'provider_key_missing',
  /** The catalog names a provider this service has no adapter for. */
  'provider_unknown',
  /** A custom model's key cannot be opened (no `PLUGIN_SECRETS_KEY`, or sealed with a key no longer held). */
  'custom_model_key_unreadable',
  /** A custom model's base URL points at an address the SSRF rules refuse. */
  'custom_model_endpoint_refused',
  /** Switched off for every Space by a service owner. */
  'globally_disabled',
  /** Past the catalog's `until` date: the provider no longer serves it. */
  'retired',
  /** Per-Space lists: the model is off in this Space. */
  'not_active_in_space',
  /** `GET /v1/models`: the calling key's `allowed_models` leaves the model out. */
  'not_allowed_for_key',
  /** The automatic name (`switchyard`): no model of the Space can answer now. */
  'no_model_available',
] as const;
export type UnavailableCode = (typeof UNAVAILABLE_CODES)[number];

export interface Unavailability {
  code: UnavailableCode;
  message: string;
}
