import type { z } from 'zod';
import type { imageGenerationSettings } from '../../schemas/plugin-settings';

export type ImageGenerationSettings = z.infer<typeof imageGenerationSettings>;

/** The JSON body of `POST {base}/images/generations`. */
export interface ImagesRequestBody {
  model: string;
  prompt: string;
  n: number;
  size: string;
  response_format?: 'url' | 'b64_json';
}

/**
 * OpenAI's GPT image models (gpt-image-1, -1-mini, -1.5, ...) always answer with `b64_json` and
 * refuse a `response_format` field with 400 "Unknown parameter", so it is left out for them.
 */
export function acceptsResponseFormat(model: string): boolean {
  return !/^gpt-image/i.test(model);
}

/** The Space's settings and the model's tool arguments (which may choose the size) as an Images request. */
export function toImagesRequest({ prompt, settings, size }: { prompt: string; settings: ImageGenerationSettings; size?: string }): ImagesRequestBody {
  const body: ImagesRequestBody = { model: settings.model, prompt, n: settings.n, size: size ?? settings.size };
  if (acceptsResponseFormat(settings.model)) body.response_format = settings.response_format;
  return body;
}
