import { z } from 'zod';
import type { ImagesConfig } from '../../config/plugins/media';
import { ApiError } from '../../errors/api-error';
import { UpstreamError } from '../../errors/upstream-error';
import { imageGenerationSettings } from '../../schemas/plugin-settings';
import type { Availability, Plugin, PluginContext, PluginInput, PluginOutput } from '../types';
import { toImagesRequest } from './request';
import { fromImagesResponse, type ImageArtifact } from './response';
import { testImages } from './test-image';
import { settingsReader } from '../settings-reader';

const readSettings = settingsReader(imageGenerationSettings);

const PLUGIN_ID = 'image-generation-generic';
/** Who is called, in errors and logs. */
const SERVICE = 'images';
/** Largest Images answer read, in bytes: four base64 PNGs of 1536x1024 fit with room to spare. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export const imageToolParameters = z.object({
  prompt: z.string().min(1).max(4000).describe('A detailed description of the image to generate.'),
  size: z
    .string()
    .regex(/^(auto|\d{2,5}x\d{2,5})$/)
    .optional()
    .describe('Width x height in pixels, e.g. 1024x1024, 1536x1024 (landscape) or 1024x1536 (portrait); `auto` lets the backend choose.'),
});

/** The prompt and size: the model's tool arguments when it called the tool, else the user's last message. */
function promptOf(input: PluginInput): { prompt: string; size?: string } {
  const args = imageToolParameters.partial().safeParse(input.args ?? {});
  if (!args.success) {
    const issue = args.error.issues[0];
    throw new ApiError('invalid_value', `image-generation-generic: ${issue?.message ?? 'invalid arguments'}`, issue?.path.map(String).join('.') || 'prompt');
  }
  const prompt = (args.data.prompt ?? input.query).trim();
  if (!prompt)
    throw new ApiError('missing_field', 'image-generation-generic needs a prompt: the last user message is empty', input.args ? 'prompt' : 'messages');
  return { prompt, size: args.data.size };
}

/** What the model is told: the images exist and reach the user as artifacts, so it can refer to them without reproducing them. */
export function imagesNote(images: ImageArtifact[], prompt: string): string {
  const count = images.length === 1 ? '1 image was' : `${images.length} images were`;
  const lines = [`${count} generated and attached to the response (the user sees them); refer to them, do not reproduce them.`, `Prompt: ${prompt}`];
  const revised = images.find((image) => image.revised_prompt)?.revised_prompt;
  if (revised) lines.push(`Revised prompt used by the image model: ${revised}`);
  return lines.join('\n');
}

/** The test backend's images, drawn here with no network call. */
function generateTestImages(config: ImagesConfig, { input, ctx }: { input: PluginInput; ctx: PluginContext }): PluginOutput {
  const settings = readSettings(ctx.settings);
  const { prompt, size } = promptOf(input);
  const images = testImages({ prompt, n: settings.n, size: size ?? settings.size });
  ctx.logger.info({ plugin: PLUGIN_ID, backend: 'test', images: images.length }, 'test images drawn');
  return { context: imagesNote(images, prompt), searchResults: [], artifacts: images, costUsd: images.length * config.costUsdPerImage };
}

async function generate(config: ImagesConfig, { input, ctx }: { input: PluginInput; ctx: PluginContext }): Promise<PluginOutput> {
  if (config.backend === 'test') return generateTestImages(config, { input, ctx });
  if (!config.apiKey) throw new UpstreamError({ kind: 'authentication', provider: SERVICE, message: 'no Images API key is configured' });
  const settings = readSettings(ctx.settings);
  const { prompt, size } = promptOf(input);
  const body = toImagesRequest({ prompt, settings, size });
  const response = await ctx.backend({
    method: 'POST',
    url: `${config.baseUrl.replace(/\/+$/, '')}/images/generations`,
    headers: { authorization: `Bearer ${config.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: ctx.signal,
    timeoutMs: Math.max(1, ctx.deadline - Date.now()),
    maxBytes: MAX_RESPONSE_BYTES,
    service: SERVICE,
  });
  const { images, usage } = fromImagesResponse(response.json(), { provider: SERVICE, requestedSize: body.size });
  ctx.logger.info({ plugin: PLUGIN_ID, model: body.model, images: images.length, usage }, 'images generated');
  return { context: imagesNote(images, prompt), searchResults: [], artifacts: images, costUsd: images.length * config.costUsdPerImage };
}

/** image-generation-generic over any OpenAI Images-compatible backend (`POST {base}/images/generations`), or the test backend. */
export function createImageGenerationPlugin(config: ImagesConfig): Plugin {
  const availability = (): Availability =>
    config.backend === 'test' || config.apiKey
      ? { available: true }
      : { available: false, reason: 'no Images backend key: set IMAGES_API_KEY (or OPENAI_API_KEY when IMAGES_BASE_URL is not set)' };
  return {
    id: PLUGIN_ID,
    phase: 'before_model',
    description: 'Generate images from a text description. The images are attached to the response for the user.',
    toolParameters: imageToolParameters,
    settingsSchema: imageGenerationSettings,
    backendKey: config.backend === 'test' ? `${PLUGIN_ID}:test` : `${PLUGIN_ID}:${new URL(config.baseUrl).host}`,
    availability,
    run: (input, ctx) => generate(config, { input, ctx }),
  };
}
