import { z } from 'zod';
import { UpstreamError } from '../../errors/upstream-error';
import type { ArtifactItem } from '../types';

export type ImageArtifact = Extract<ArtifactItem, { type: 'image' }>;

const image = z.looseObject({
  url: z.string().min(1).optional(),
  b64_json: z.string().min(1).optional(),
  revised_prompt: z.string().optional(),
});

/** `usage` as the GPT image models report it (tokens); other backends send none. */
const usage = z.looseObject({
  input_tokens: z.number().optional(),
  output_tokens: z.number().optional(),
  total_tokens: z.number().optional(),
});
export type ImagesUsage = z.infer<typeof usage>;

/** The Images API answer; `output_format` and `size` come from the GPT image models only. */
const imagesResponse = z.looseObject({
  data: z.array(image).nullish(),
  output_format: z.string().optional(),
  size: z.string().optional(),
  usage: usage.optional(),
});

const MIME_BY_FORMAT: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', jpg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' };

/** The image's type from its first bytes, for backends that do not say (`output_format`). */
function sniffBase64(b64: string): string | undefined {
  const head = Buffer.from(b64.slice(0, 24), 'base64');
  if (head.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47]))) return 'image/png';
  if (head.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))) return 'image/jpeg';
  if (head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  if (head.toString('latin1', 0, 4) === 'GIF8') return 'image/gif';
  return undefined;
}

function extensionOf(url: string): string | undefined {
  try {
    return /\.([a-z0-9]+)$/i.exec(new URL(url).pathname)?.[1]?.toLowerCase();
  } catch {
    return undefined;
  }
}

/** The MIME type of one image: the backend's `output_format`, else its bytes, else its URL; PNG (what DALL·E sends) when none tells. */
function mimeTypeOf(item: z.infer<typeof image>, outputFormat: string | undefined): string {
  const named = outputFormat ? MIME_BY_FORMAT[outputFormat.toLowerCase()] : undefined;
  const sniffed = item.b64_json ? sniffBase64(item.b64_json) : undefined;
  const fromUrl = item.url ? MIME_BY_FORMAT[extensionOf(item.url) ?? ''] : undefined;
  return named ?? sniffed ?? fromUrl ?? 'image/png';
}

/**
 * An Images API answer as artifacts. An answer that is not the Images shape, or that holds no image
 * (a 200 with `data: []`, or entries with neither `url` nor `b64_json`), is `invalid_response`: the
 * caller asked for an image and got none.
 */
export function fromImagesResponse(
  body: unknown,
  { provider, requestedSize }: { provider: string; requestedSize: string },
): { images: ImageArtifact[]; usage?: ImagesUsage } {
  const parsed = imagesResponse.safeParse(body);
  if (!parsed.success)
    throw new UpstreamError({ kind: 'invalid_response', provider, message: `${provider} sent an answer that is not an Images API response` });
  const { data, output_format: outputFormat, size, usage: reported } = parsed.data;
  // The size the backend reports (GPT image models), else the one asked for unless that was `auto`.
  const shownSize = size ?? (requestedSize === 'auto' ? undefined : requestedSize);
  const images: ImageArtifact[] = (data ?? [])
    .filter((item) => item.url !== undefined || item.b64_json !== undefined)
    .map((item) => ({
      type: 'image',
      plugin: 'image-generation-generic',
      mime_type: mimeTypeOf(item, outputFormat),
      ...(item.url !== undefined ? { url: item.url } : {}),
      ...(item.b64_json !== undefined ? { b64_json: item.b64_json } : {}),
      ...(shownSize ? { size: shownSize } : {}),
      ...(item.revised_prompt ? { revised_prompt: item.revised_prompt } : {}),
    }));
  if (images.length === 0) throw new UpstreamError({ kind: 'invalid_response', provider, message: `${provider} answered without any image` });
  return reported ? { images, usage: reported } : { images };
}
