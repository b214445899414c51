import { lookup } from 'mime-types';

/** An audio file's type, and the extension its upload carries (OpenAI tells the format by the file name). */
export interface AudioFormat {
  mimeType: string;
  extension: string;
}

/** The formats OpenAI's /audio/transcriptions accepts, by extension. */
const ACCEPTED: Record<string, string> = {
  flac: 'audio/flac',
  mp3: 'audio/mpeg',
  mpeg: 'audio/mpeg',
  mpga: 'audio/mpeg',
  mp4: 'audio/mp4',
  m4a: 'audio/mp4',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/ogg',
  wav: 'audio/wav',
  webm: 'audio/webm',
};

/** Declared MIME types (as senders spell them) → the extension the upload gets. */
const EXTENSION_BY_MIME: Record<string, string> = {
  'audio/flac': 'flac',
  'audio/x-flac': 'flac',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/mpga': 'mp3',
  'audio/mp4': 'm4a',
  'audio/x-m4a': 'm4a',
  'audio/m4a': 'm4a',
  'video/mp4': 'mp4',
  'audio/ogg': 'ogg',
  'audio/opus': 'ogg',
  'audio/wav': 'wav',
  'audio/wave': 'wav',
  'audio/x-wav': 'wav',
  'audio/webm': 'webm',
  'video/webm': 'webm',
};

const ascii = (bytes: Buffer, start: number, end: number) => bytes.toString('latin1', start, end);

/** MPEG audio layer III frame sync (11 set bits, layer bits 01), as a headerless MP3 starts. */
const isMp3Frame = (bytes: Buffer) => bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0 && (((bytes[1] ?? 0) >> 1) & 0x03) === 0x01;

/** The container an audio file's first bytes announce, among the accepted formats; null when none. */
export function sniffAudio(bytes: Buffer): AudioFormat | null {
  if (bytes.length < 12) return null;
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WAVE') return { mimeType: 'audio/wav', extension: 'wav' };
  if (ascii(bytes, 0, 4) === 'fLaC') return { mimeType: 'audio/flac', extension: 'flac' };
  if (ascii(bytes, 0, 4) === 'OggS') return { mimeType: 'audio/ogg', extension: 'ogg' };
  if (ascii(bytes, 0, 3) === 'ID3' || isMp3Frame(bytes)) return { mimeType: 'audio/mpeg', extension: 'mp3' };
  if (ascii(bytes, 4, 8) === 'ftyp') {
    const brand = ascii(bytes, 8, 12);
    return brand.startsWith('M4A') ? { mimeType: 'audio/mp4', extension: 'm4a' } : { mimeType: 'video/mp4', extension: 'mp4' };
  }
  // EBML header; WebM names its doc type within the first bytes (Matroska, which OpenAI refuses, says `matroska`).
  if (bytes.readUInt32BE(0) === 0x1a45dfa3 && ascii(bytes, 0, 64).includes('webm')) return { mimeType: 'audio/webm', extension: 'webm' };
  return null;
}

function extensionOf(name: string): string {
  const match = /\.([a-z0-9]+)$/i.exec(name);
  return match?.[1]?.toLowerCase() ?? '';
}

/**
 * Whether a file is audio the backend can take, and as what: its bytes first (a sender's MIME type
 * can be wrong or generic), then its declared MIME type, then its name. Null: not audio, to be ignored.
 */
export function audioFormatOf({ name, mimeType, bytes }: { name: string; mimeType: string; bytes: Buffer }): AudioFormat | null {
  const sniffed = sniffAudio(bytes);
  if (sniffed) return sniffed;
  const declared = mimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  const byMime = EXTENSION_BY_MIME[declared];
  if (byMime) return { mimeType: declared, extension: byMime };
  const extension = extensionOf(name);
  const byName = ACCEPTED[extension];
  return byName ? { mimeType: byName, extension } : null;
}

/**
 * Whether a URL is worth fetching: its path's extension names audio or video, or names nothing
 * (`https://host/recording?id=7`). A URL to a PDF or an image is skipped without a request.
 */
export function mayBeAudioUrl(url: URL): boolean {
  const extension = extensionOf(url.pathname);
  if (!extension || ACCEPTED[extension]) return true;
  const type = lookup(extension);
  return type === false || type.startsWith('audio/') || type.startsWith('video/');
}

/** The name the upload carries: the file's own, with the format's extension when it lacks it. */
export function uploadName(name: string, format: AudioFormat): string {
  const base = name.replace(/[\r\n"]/g, '').trim() || 'audio';
  return extensionOf(base) === format.extension ? base : `${base}.${format.extension}`;
}

/** Whether a declared MIME type names audio (or a video container the backend takes). */
export function isAudioMimeType(mimeType: string): boolean {
  const type = mimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  return type.startsWith('audio/') || type in EXTENSION_BY_MIME;
}
