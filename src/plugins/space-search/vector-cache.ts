import type { ChunkKey, ChunkText, RankedChunk, SpaceFileChunkRepository } from '../../store/space-file-chunks';

/** Spaces whose vectors one worker keeps. */
const MAX_SPACES = 256;
/** Floats one Space may keep in memory (4 bytes each, with its chunks' text); a larger Space is ranked by PostgreSQL. */
const MAX_FLOATS_PER_SPACE = 4_000_000;

interface Entry {
  stamp: string;
  /** null: too large to keep, ranked by PostgreSQL instead. */
  rows: (ChunkText & { vector: Float32Array })[] | null;
  /** The rows by `file_id:position`, made when first asked for a chunk's text. */
  byKey?: Map<string, ChunkText>;
}

const keyOf = (chunk: ChunkKey) => `${chunk.file_id}:${chunk.position}`;

function dot(a: Float32Array, b: number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

/**
 * Each Space's chunk vectors, kept by the worker while the Space's chunk set stays the same (its
 * stamp), so the cosine ranking is a dot product per chunk in memory rather than a scan that
 * PostgreSQL computes with `unnest` for every request: that scan was the largest single cost of a
 * completion with space-search in `npm run bench:plugins`. Same ranking as `nearest`: cosine (every
 * vector being unit length), positive similarity only, ties by file and position.
 */
export class SpaceVectorCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly chunks: Pick<SpaceFileChunkRepository, 'vectors' | 'nearest'>) {}

  /** Whether the Space had chunks when this worker last read its vectors (at whatever stamp). */
  hadChunks(appId: string): boolean {
    const entry = this.entries.get(appId);
    return entry !== undefined && (entry.rows === null || entry.rows.length > 0);
  }

  /**
   * Whether this worker keeps the Space's chunks with their text (at whatever stamp): its full-text
   * search can then leave the texts out, and `textOf` gives those of the chunks chosen.
   */
  holdsTexts(appId: string): boolean {
    const rows = this.entries.get(appId)?.rows;
    return rows !== undefined && rows !== null && rows.length > 0;
  }

  /** A chunk's text and file name as kept at the Space's current stamp here (after `nearest`), if kept. */
  textOf(appId: string, chunk: ChunkKey): ChunkText | undefined {
    const entry = this.entries.get(appId);
    if (!entry?.rows) return undefined;
    // The text and file name alone: a hit is built by spreading it, and the vector is not the hit's.
    entry.byKey ??= new Map(entry.rows.map(({ file_id, position, text, file_name }) => [keyOf({ file_id, position }), { file_id, position, text, file_name }]));
    return entry.byKey.get(keyOf(chunk));
  }

  /** Drops what is kept of a Space found to have no chunks any more. */
  forget(appId: string): void {
    this.entries.delete(appId);
  }

  /** The nearest chunks, with their text and file name when the Space's vectors are kept here. */
  async nearest(appId: string, { stamp, vector, limit }: { stamp: string; vector: number[]; limit: number }): Promise<(RankedChunk & Partial<ChunkText>)[]> {
    const entry = await this.entryOf(appId, stamp);
    if (!entry.rows) return this.chunks.nearest(appId, { vector, limit });
    const scored: (RankedChunk & ChunkText)[] = [];
    for (const row of entry.rows) {
      if (row.vector.length !== vector.length) continue;
      const score = dot(row.vector, vector);
      if (score > 0) scored.push({ file_id: row.file_id, position: row.position, score, text: row.text, file_name: row.file_name });
    }
    scored.sort((a, b) => b.score - a.score || (a.file_id < b.file_id ? -1 : a.file_id > b.file_id ? 1 : a.position - b.position));
    return scored.slice(0, limit);
  }

  private async entryOf(appId: string, stamp: string): Promise<Entry> {
    const known = this.entries.get(appId);
    if (known && known.stamp === stamp) {
      // Most recently used last: the first key is the one to drop.
      this.entries.delete(appId);
      this.entries.set(appId, known);
      return known;
    }
    const loaded = await this.chunks.vectors(appId);
    const floats = loaded.reduce((sum, row) => sum + row.embedding.length, 0);
    const entry: Entry = {
      stamp,
      rows:
        floats > MAX_FLOATS_PER_SPACE
          ? null
          : loaded.map((row) => ({
              file_id: row.file_id,
              position: row.position,
              text: row.text,
              file_name: row.file_name,
              vector: Float32Array.from(row.embedding),
            })),
    };
    this.entries.delete(appId);
    this.entries.set(appId, entry);
    if (this.entries.size > MAX_SPACES) this.entries.delete(this.entries.keys().next().value as string);
    return entry;
  }
}
