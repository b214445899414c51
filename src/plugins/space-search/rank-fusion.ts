import type { ChunkKey } from '../../store/space-file-chunks';

/** Reciprocal rank fusion's constant: 60, as in Cormack, Clarke and Büttcher (2009) and most engines since. */
export const RRF_K = 60;

export interface FusedChunk extends ChunkKey {
  /** Σ 1 / (k + rank) over the rankings that hold the chunk (rank 1 = best). */
  score: number;
}

const keyOf = (chunk: ChunkKey) => `${chunk.file_id}:${chunk.position}`;

/** File ids are lowercase UUIDs: code-unit order is their collation order, without `localeCompare`'s cost in a comparator. */
const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Merges rankings whose scores are not comparable (ts_rank_cd, cosine similarity) by rank alone: a
 * chunk near the top of either list, or fairly high in both, comes first. Ties keep a stable order
 * (file id, then position), so the same query gives the same sources.
 */
export function fuseRankings(rankings: ChunkKey[][], k = RRF_K): FusedChunk[] {
  const fused = new Map<string, FusedChunk>();
  for (const ranking of rankings) {
    ranking.forEach((chunk, index) => {
      const key = keyOf(chunk);
      const entry = fused.get(key) ?? { file_id: chunk.file_id, position: chunk.position, score: 0 };
      entry.score += 1 / (k + index + 1);
      fused.set(key, entry);
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || byId(a.file_id, b.file_id) || a.position - b.position);
}
