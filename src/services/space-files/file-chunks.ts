import { chunkText } from './chunk-text';
import { extractText } from './extract-text';
import type { FileKind } from './file-types';

/**
 * The search chunks of a stored file: its text extracted (by kind), normalised and cut. All the work
 * whose cost the file's content decides, so it runs in the file-chunks process, never on a worker's
 * event loop. Audio and unknown kinds have no text.
 */
export async function fileChunks(kind: FileKind | null, bytes: Buffer): Promise<string[]> {
  if (kind === null || kind === 'audio') return [];
  return chunkText(await extractText(kind, bytes));
}
