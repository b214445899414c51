import { convert } from 'html-to-text';
import mammoth from 'mammoth';
import type { FileKind } from './file-types';
import { pdfText } from './pdf-text';

const utf8 = (bytes: Buffer) => bytes.toString('utf8').replace(/^\uFEFF/, '');

function jsonText(bytes: Buffer): string {
  const text = utf8(bytes);
  // Indexed as written (keys and values are both worth finding), but it must be JSON.
  JSON.parse(text);
  return text;
}

function htmlText(bytes: Buffer): string {
  return convert(utf8(bytes), {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
    ],
  });
}

async function docxText(bytes: Buffer): Promise<string> {
  const result = await mammoth.extractRawText({ buffer: bytes });
  return result.value;
}

/** The plain text of an indexed file; rejects with a reason a person can act on. */
export async function extractText(kind: Exclude<FileKind, 'audio'>, bytes: Buffer): Promise<string> {
  switch (kind) {
    case 'pdf':
      return pdfText(bytes);
    case 'docx':
      return docxText(bytes);
    case 'html':
      return htmlText(bytes);
    case 'json':
      return jsonText(bytes);
    case 'text':
    case 'markdown':
    case 'csv':
      return utf8(bytes);
  }
}
