import { ApiError } from '../../errors/api-error';

/** A `data:` URL's header, before anything is decoded. */
export interface DataUrl {
  mimeType: string;
  /** Bytes the payload decodes to (exact for base64, an upper bound for percent-encoding). */
  decodedBytes: number;
  decode(): Buffer;
}

const DATA_URL = /^data:([^,]*?),/i;

/** base64 carries 3 bytes in 4 characters, less its `=` padding. */
function base64Size(payload: string): number {
  const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
  return Math.floor((payload.length * 3) / 4) - padding;
}

/**
 * Reads a `data:[<type>][;base64],<payload>` URL's header (RFC 2397) so that its size can be checked
 * before the payload is decoded. A URL that is not one is the caller's error, naming `param`.
 */
export function parseDataUrl(ref: string, param: string): DataUrl {
  const header = DATA_URL.exec(ref);
  if (!header) throw new ApiError('invalid_value', `${param} is not a valid data URL`, param);
  const parts = (header[1] ?? '').split(';').map((part) => part.trim());
  const base64 = parts.slice(1).some((part) => part.toLowerCase() === 'base64');
  const mimeType = (parts[0] || 'text/plain').toLowerCase();
  const payload = ref.slice(header[0].length);
  if (base64) {
    const compact = payload.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) throw new ApiError('invalid_value', `${param} is not valid base64`, param);
    return { mimeType, decodedBytes: base64Size(compact), decode: () => Buffer.from(compact, 'base64') };
  }
  // Percent-decoded byte by byte: the payload is binary, so it need not be valid UTF-8.
  const decode = () =>
    Buffer.from(
      payload.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    );
  return { mimeType, decodedBytes: payload.length, decode };
}
