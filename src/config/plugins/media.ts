import { z } from 'zod';

/**
 * Service-wide configuration of the two media plugins (image-generation-generic, transcribe-audio):
 * which OpenAI-compatible backend each calls, with what key, and what it costs. Both default to the
 * OpenAI provider's base URL and key, so a deployment with `OPENAI_API_KEY` has them with no more set.
 */

const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** USD per generated image: OpenAI's price of one 1024x1024 image at `standard` (dall-e-3) / `medium` (gpt-image-1) quality, rounded. */
export const DEFAULT_IMAGE_COST_USD = 0.04;
/** USD per minute of audio: OpenAI's whisper-1 price. */
export const DEFAULT_TRANSCRIBE_COST_USD_PER_MINUTE = 0.006;
/** OpenAI's own upload limit for /audio/transcriptions, in bytes (25 MiB). */
export const DEFAULT_TRANSCRIBE_MAX_BYTES = 25 * 1024 * 1024;
/** Longest audio transcribed, in seconds (30 minutes). */
export const DEFAULT_TRANSCRIBE_MAX_SECONDS = 1800;

/**
 * `openai-compatible` (the default) calls the base URL; `test` answers in the worker with no network
 * (test PNGs, a fixed test transcript: docs/plugins/images-and-audio.md), chosen only by
 * `IMAGES_BACKEND=test` / `TRANSCRIBE_BACKEND=test`, and free unless the cost variable says otherwise.
 */
export const MEDIA_BACKENDS = ['openai-compatible', 'test'] as const;

const backend = {
  backend: z.enum(MEDIA_BACKENDS).default('openai-compatible'),
  baseUrl: z.url({ protocol: /^https?$/ }),
  /** Absent: the plugin is unavailable (its availability() says which variable to set); never needed by the test backend. */
  apiKey: z.string().min(1).optional(),
};

export const imagesConfigSchema = z.strictObject({
  ...backend,
  /** USD per image returned. */
  costUsdPerImage: z.coerce.number().min(0).default(DEFAULT_IMAGE_COST_USD),
});
export type ImagesConfig = z.infer<typeof imagesConfigSchema>;

export const transcribeConfigSchema = z.strictObject({
  ...backend,
  /** USD per minute of audio, billed per started second. */
  costUsdPerMinute: z.coerce.number().min(0).default(DEFAULT_TRANSCRIBE_COST_USD_PER_MINUTE),
  /** Largest audio file accepted, in bytes. */
  maxBytes: z.coerce.number().int().positive().default(DEFAULT_TRANSCRIBE_MAX_BYTES),
  /** Longest audio accepted, in seconds. */
  maxSeconds: z.coerce.number().positive().default(DEFAULT_TRANSCRIBE_MAX_SECONDS),
});
export type TranscribeConfig = z.infer<typeof transcribeConfigSchema>;

export const mediaConfigSchema = z.strictObject({ images: imagesConfigSchema, transcribe: transcribeConfigSchema });
export type MediaConfig = z.infer<typeof mediaConfigSchema>;

/** Every environment variable `readMediaConfig` reads (for `.env.example` and its test). */
export const MEDIA_ENV_VARIABLES = [
  'IMAGES_BACKEND',
  'IMAGES_BASE_URL',
  'IMAGES_API_KEY',
  'IMAGE_COST_USD',
  'TRANSCRIBE_BACKEND',
  'TRANSCRIBE_BASE_URL',
  'TRANSCRIBE_API_KEY',
  'TRANSCRIBE_COST_USD_PER_MINUTE',
  'TRANSCRIBE_MAX_BYTES',
  'TRANSCRIBE_MAX_SECONDS',
] as const;

const ENV_NAMES: Record<string, Record<string, string>> = {
  images: { backend: 'IMAGES_BACKEND', baseUrl: 'IMAGES_BASE_URL', apiKey: 'IMAGES_API_KEY', costUsdPerImage: 'IMAGE_COST_USD' },
  transcribe: {
    backend: 'TRANSCRIBE_BACKEND',
    baseUrl: 'TRANSCRIBE_BASE_URL',
    apiKey: 'TRANSCRIBE_API_KEY',
    costUsdPerMinute: 'TRANSCRIBE_COST_USD_PER_MINUTE',
    maxBytes: 'TRANSCRIBE_MAX_BYTES',
    maxSeconds: 'TRANSCRIBE_MAX_SECONDS',
  },
};

type Env = Record<string, string | undefined>;

const nonEmpty = (value: string | undefined): string | undefined => (value === undefined || value === '' ? undefined : value);

/**
 * A plugin's base URL and key. The OpenAI key is borrowed only together with the OpenAI base URL: a
 * plugin pointed at another host (`IMAGES_BASE_URL`) never receives `OPENAI_API_KEY`, so an operator's
 * OpenAI key cannot leak to a self-hosted or third-party backend by default.
 */
function backendFrom(env: Env, prefix: 'IMAGES' | 'TRANSCRIBE'): { backend: string | undefined; baseUrl: string; apiKey: string | undefined } {
  const backend = nonEmpty(env[`${prefix}_BACKEND`])?.toLowerCase();
  const ownBase = nonEmpty(env[`${prefix}_BASE_URL`]);
  const ownKey = nonEmpty(env[`${prefix}_API_KEY`]);
  if (ownBase) return { backend, baseUrl: ownBase, apiKey: ownKey };
  return { backend, baseUrl: nonEmpty(env.OPENAI_BASE_URL) ?? DEFAULT_OPENAI_BASE_URL, apiKey: ownKey ?? nonEmpty(env.OPENAI_API_KEY) };
}

/** A cost variable's value; unset, the test backend is free (the schema's default applies to the others). */
function costFrom(env: Env, name: 'IMAGE_COST_USD' | 'TRANSCRIBE_COST_USD_PER_MINUTE', backend: string | undefined): string | number | undefined {
  return nonEmpty(env[name]) ?? (backend === 'test' ? 0 : undefined);
}

/** Reads and validates the media plugins' configuration; a bad value throws an Error naming its variable. */
export function readMediaConfig(env: Env): MediaConfig {
  const images = backendFrom(env, 'IMAGES');
  const transcribe = backendFrom(env, 'TRANSCRIBE');
  const parsed = mediaConfigSchema.safeParse({
    images: { ...images, costUsdPerImage: costFrom(env, 'IMAGE_COST_USD', images.backend) },
    transcribe: {
      ...transcribe,
      costUsdPerMinute: costFrom(env, 'TRANSCRIBE_COST_USD_PER_MINUTE', transcribe.backend),
      maxBytes: nonEmpty(env.TRANSCRIBE_MAX_BYTES),
      maxSeconds: nonEmpty(env.TRANSCRIBE_MAX_SECONDS),
    },
  });
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => {
    const [area, key] = issue.path.map(String);
    const name = ENV_NAMES[area ?? '']?.[key ?? ''] ?? issue.path.join('.');
    return `${name}: ${issue.message}`;
  });
  throw new Error(`Invalid media plugin configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
}
