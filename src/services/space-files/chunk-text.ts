import { splitSentences } from './split-sentences';

/**
 * Cuts extracted text into passages for search: about `targetChars` each (1,000 characters, some
 * 250 tokens), ending on paragraph or sentence boundaries, each starting with the last sentences of
 * the one before (up to `overlapChars`) so that an answer straddling a boundary is whole in one chunk.
 */
export interface ChunkOptions {
  targetChars: number;
  overlapChars: number;
}

export const DEFAULT_CHUNKING: ChunkOptions = { targetChars: 1000, overlapChars: 150 };

/**
 * Spaces and tabs at line ends removed. Not `/[ \t]+\n/g`: on a long run of spaces that no line break
 * ends, the regular expression retries from every space, quadratic (80,000 spaces: 5 s).
 */
function trimLineEnds(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      let end = line.length;
      while (end > 0 && (line[end - 1] === ' ' || line[end - 1] === '\t')) end--;
      return end === line.length ? line : line.slice(0, end);
    })
    .join('\n');
}

/** Line ends unified, NUL and other control characters (PDF extraction leaves some) removed, runs of blank lines collapsed. */
export function normaliseText(text: string): string {
  const unified = text
    .replace(/\r\n?/g, '\n')
    // eslint-disable-next-line no-control-regex -- removing control characters is the point
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '');
  return trimLineEnds(unified)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** A sentence longer than a chunk is cut between words (and a "word" longer than a chunk, anywhere). */
function splitLong(sentence: string, limit: number): string[] {
  if (sentence.length <= limit) return [sentence];
  const parts: string[] = [];
  let current = '';
  for (const word of sentence.split(/(?<=\s)/)) {
    if (current.length + word.length > limit && current) {
      parts.push(current);
      current = '';
    }
    for (let start = 0; start < word.length; start += limit) {
      const piece = word.slice(start, start + limit);
      if (piece.length === limit) parts.push(piece);
      else current += piece;
    }
  }
  if (current) parts.push(current);
  return parts;
}

/** Sentences (with their trailing whitespace), a paragraph's last one followed by a blank line. */
function units(text: string, limit: number): string[] {
  const result: string[] = [];
  for (const paragraph of text.split(/\n\n+/)) {
    const pieces = splitSentences(paragraph).flatMap((sentence) => splitLong(sentence, limit));
    if (pieces.length === 0) continue;
    pieces[pieces.length - 1] = `${(pieces.at(-1) ?? '').trimEnd()}\n\n`;
    // One at a time: spreading a paragraph of 100,000s of sentences into push() overflows the stack.
    for (const piece of pieces) result.push(piece);
  }
  return result;
}

/** The last units of a chunk that fit in `overlapChars`, never the whole chunk. */
function overlapTail(chunk: string[], overlapChars: number): string[] {
  const tail: string[] = [];
  let size = 0;
  for (let i = chunk.length - 1; i > 0; i--) {
    const unit = chunk[i] as string;
    if (size + unit.length > overlapChars) break;
    tail.unshift(unit);
    size += unit.length;
  }
  return tail;
}

export function chunkText(text: string, options: ChunkOptions = DEFAULT_CHUNKING): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let size = 0;
  let fresh = false;
  for (const unit of units(normaliseText(text), options.targetChars)) {
    if (fresh && size + unit.length > options.targetChars) {
      chunks.push(current.join('').trim());
      current = overlapTail(current, options.overlapChars);
      size = current.reduce((sum, piece) => sum + piece.length, 0);
    }
    current.push(unit);
    size += unit.length;
    fresh = true;
  }
  if (fresh) chunks.push(current.join('').trim());
  return chunks.filter((chunk) => chunk.length > 0);
}
