import { ApiError } from '../../errors/api-error';
import { UpstreamError } from '../../errors/upstream-error';
import type { PluginContext } from '../types';
import { audioFormatOf, isAudioMimeType, mayBeAudioUrl, uploadName, type AudioFormat } from './audio-format';
import { parseDataUrl } from './data-url';
import type { AudioRef } from './sources';
import type { SpaceFileReader } from './space-file-reader';

/** One audio file ready to upload. */
export interface LoadedAudio {
  /** The upload's file name, ending in the format's extension. */
  name: string;
  format: AudioFormat;
  bytes: Buffer;
  /** What the transcript is labelled with: the URL, the Space file, or the request field of a data URL. */
  source: string;
  /** The request field it came from (`files[1]`), for errors. */
  param: string;
}

export interface LoadDeps {
  ctx: PluginContext;
  spaceFiles: SpaceFileReader;
  /** Largest file accepted, in bytes. */
  maxBytes: number;
}

export function tooLarge(param: string, maxBytes: number): ApiError {
  return new ApiError('payload_too_large', `${param} is larger than the ${maxBytes} bytes transcribe-audio accepts`, param);
}

function lastSegment(url: URL): string {
  const segment = url.pathname.split('/').filter(Boolean).pop() ?? '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Fetches a request's URL through the SSRF-safe client (never the backend one). Its failures are the
 * caller's URL's, so they become an ApiError naming the field, except running out of time. By the
 * client's contract a body over `maxBytes` fails with `invalid_response`: for this plain GET that is
 * the only way to get one, so it means "too large".
 */
async function fetchUrl(ref: Extract<AudioRef, { kind: 'url' }>, { ctx, maxBytes }: LoadDeps) {
  try {
    return await ctx.untrusted({
      method: 'GET',
      url: ref.url.href,
      signal: ctx.signal,
      timeoutMs: Math.max(1, ctx.deadline - Date.now()),
      maxBytes,
      service: 'audio-url',
    });
  } catch (err) {
    if (!(err instanceof UpstreamError) || ctx.signal.aborted || err.kind === 'timeout' || err.kind === 'aborted') throw err;
    if (err.kind === 'invalid_response') throw tooLarge(ref.param, maxBytes);
    throw new ApiError('invalid_value', `${ref.param} could not be fetched: ${err.message}`, ref.param);
  }
}

async function fromUrl(ref: Extract<AudioRef, { kind: 'url' }>, deps: LoadDeps): Promise<LoadedAudio | null> {
  if (!mayBeAudioUrl(ref.url)) return null;
  const response = await fetchUrl(ref, deps);
  const name = lastSegment(new URL(response.url || ref.url.href));
  const format = audioFormatOf({ name, mimeType: response.headers.get('content-type') ?? '', bytes: response.body });
  return format ? { name: uploadName(name, format), format, bytes: response.body, source: ref.url.href, param: ref.param } : null;
}

function fromDataUrl(ref: Extract<AudioRef, { kind: 'data' }>, { maxBytes }: LoadDeps): LoadedAudio | null {
  const dataUrl = parseDataUrl(ref.ref, ref.param);
  // A data URL that says it is something else (an image, a text) is not decoded at all.
  if (!isAudioMimeType(dataUrl.mimeType) && dataUrl.mimeType !== 'application/octet-stream') return null;
  if (dataUrl.decodedBytes > maxBytes) throw tooLarge(ref.param, maxBytes);
  const bytes = dataUrl.decode();
  const format = audioFormatOf({ name: '', mimeType: dataUrl.mimeType, bytes });
  return format ? { name: uploadName('audio', format), format, bytes, source: `${ref.param} (data URL)`, param: ref.param } : null;
}

async function fromSpaceFile(ref: Extract<AudioRef, { kind: 'space-file' }>, { ctx, spaceFiles, maxBytes }: LoadDeps): Promise<LoadedAudio | null> {
  const file = await spaceFiles.read(ctx.space.dataSpaceId, ref.fileId);
  if (!file) throw ApiError.notFound(`Space file ${ref.fileId}`, ref.param);
  const format = audioFormatOf(file);
  if (!format) return null;
  if (file.bytes.length > maxBytes) throw tooLarge(ref.param, maxBytes);
  return { name: uploadName(file.name, format), format, bytes: file.bytes, source: `${file.name} (Space file ${ref.fileId})`, param: ref.param };
}

/** Reads one referenced file; null when it is not audio (ignored). Too large: ApiError `payload_too_large` naming the field. */
export async function loadAudio(ref: AudioRef, deps: LoadDeps): Promise<LoadedAudio | null> {
  switch (ref.kind) {
    case 'url':
      return fromUrl(ref, deps);
    case 'data':
      return fromDataUrl(ref, deps);
    case 'space-file':
      return fromSpaceFile(ref, deps);
  }
}
