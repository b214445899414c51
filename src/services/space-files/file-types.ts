/**
 * Which uploads a Space accepts, by extension AND by content: a name says what the client claims,
 * the bytes say what it is. `file-type` would sniff more formats, but it is ESM-only (this project
 * is CommonJS) and these few signatures are all we accept.
 */
export type FileKind = 'text' | 'markdown' | 'html' | 'csv' | 'json' | 'pdf' | 'docx' | 'audio';

export interface AcceptedType {
  kind: FileKind;
  mimeType: string;
  /** Audio is stored for transcribe-audio, not indexed. */
  indexed: boolean;
}

type Sniff = (bytes: Buffer) => boolean;

const startsWith = (bytes: Buffer, text: string, offset = 0) => bytes.subarray(offset, offset + text.length).toString('latin1') === text;

const utf8 = new TextDecoder('utf-8', { fatal: true });

const isPdf: Sniff = (bytes) => startsWith(bytes, '%PDF-');
const isZip: Sniff = (bytes) => startsWith(bytes, 'PK\x03\x04');

/**
 * Text: valid UTF-8 with no NUL (PostgreSQL text cannot hold one, and binaries have many), and not a
 * document format that happens to be ASCII (a PDF can be) under a text name.
 */
const isText: Sniff = (bytes) => {
  if (bytes.includes(0) || isPdf(bytes) || isZip(bytes)) return false;
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
};

/** A ZIP whose entries include Word's main part. */
const isDocx: Sniff = (bytes) => isZip(bytes) && bytes.includes('word/document.xml');
/** An ID3 tag, or an MPEG audio frame sync (11 set bits). */
const isMp3: Sniff = (bytes) => startsWith(bytes, 'ID3') || (bytes.length > 1 && bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0);
const isWav: Sniff = (bytes) => startsWith(bytes, 'RIFF') && startsWith(bytes, 'WAVE', 8);
const isMp4Audio: Sniff = (bytes) => startsWith(bytes, 'ftyp', 4);
const isOgg: Sniff = (bytes) => startsWith(bytes, 'OggS');
const isWebm: Sniff = (bytes) => startsWith(bytes, '\x1a\x45\xdf\xa3');
const isFlac: Sniff = (bytes) => startsWith(bytes, 'fLaC');

interface TypeRule extends AcceptedType {
  sniff: Sniff;
}

const text = (kind: FileKind, mimeType: string): TypeRule => ({ kind, mimeType, indexed: true, sniff: isText });
const audio = (mimeType: string, sniff: Sniff): TypeRule => ({ kind: 'audio', mimeType, indexed: false, sniff });

const RULES: Record<string, TypeRule> = {
  txt: text('text', 'text/plain'),
  md: text('markdown', 'text/markdown'),
  markdown: text('markdown', 'text/markdown'),
  html: text('html', 'text/html'),
  htm: text('html', 'text/html'),
  csv: text('csv', 'text/csv'),
  json: text('json', 'application/json'),
  pdf: { kind: 'pdf', mimeType: 'application/pdf', indexed: true, sniff: isPdf },
  docx: { kind: 'docx', mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', indexed: true, sniff: isDocx },
  mp3: audio('audio/mpeg', isMp3),
  wav: audio('audio/wav', isWav),
  m4a: audio('audio/mp4', isMp4Audio),
  ogg: audio('audio/ogg', isOgg),
  webm: audio('audio/webm', isWebm),
  flac: audio('audio/flac', isFlac),
};

export const ACCEPTED_EXTENSIONS = Object.keys(RULES);

export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** The accepted type of an upload, or null when its extension is not accepted or its bytes are not what the extension says. */
export function recognise(name: string, bytes: Buffer): AcceptedType | null {
  const rule = RULES[extensionOf(name)];
  if (!rule || !rule.sniff(bytes)) return null;
  return { kind: rule.kind, mimeType: rule.mimeType, indexed: rule.indexed };
}

/** The kind a stored file was recognised as, from the MIME type recorded at upload. */
export function kindOfMimeType(mimeType: string): FileKind | null {
  return Object.values(RULES).find((rule) => rule.mimeType === mimeType)?.kind ?? null;
}
