import type { Pool } from 'pg';
import type { SearchResultItem } from '../../src/plugins/types';
import { contextOf, searchResultsOf } from '../../src/plugins/space-search/present-results';
import { fuseRankings } from '../../src/plugins/space-search/rank-fusion';
import type { SearchHit } from '../../src/plugins/space-search/search-chunks';
import { snippetsFor } from '../../src/plugins/space-search/snippet';
import type { ChunkKey, ChunkText } from '../../src/store/space-file-chunks';
import { callJson } from './floor-plugins';

/**
 * The plugin floor's space-search (tools/bench/plugin-floor-worker.ts): the same work as Switchyard's
 * (src/plugins/space-search/), the leanest way we know, on node-postgres without Prisma:
 * - the query's embedding from the same embeddings backend, asked for while PostgreSQL ranks the text;
 * - the same full-text statement over the same `space_file_chunks` rows (store/space-file-chunks.ts's
 *   `search`, keys only: the Space's chunk count and stamp, the query's lexemes, the 50 best chunks by
 *   every-term match then `ts_rank_cd`), one prepared statement per pooled connection;
 * - the cosine ranking over the Space's vectors, kept in memory while the stamp stays the same (read
 *   again when it changes), and the texts of the chosen chunks from there;
 * - Switchyard's own pure functions for the rest, so that the output is the same: reciprocal rank
 *   fusion (`fuseRankings`), snippets (`snippetsFor`), the context and `search_results` (`contextOf`,
 *   `searchResultsOf`).
 * No limiter, no timeout, no cost, no settings read per request (max_results is its default, 5).
 */

/** How deep each ranking goes before fusion (search-chunks.ts's CANDIDATES). */
const CANDIDATES = 50;
/** Chunks given to the model: space-search's default `max_results`. */
const MAX_RESULTS = 5;
/** Longest query searched, in characters (space-search's MAX_QUERY_CHARS). */
const MAX_QUERY_CHARS = 1000;

/** store/space-file-chunks.ts's `search` with `texts: false`, its parameters numbered: $1 the query, $2 the Space, $3 the limit. */
const SEARCH_SQL = `
  WITH q AS (
         WITH parsed AS (SELECT websearch_to_tsquery('english'::regconfig, $1) AS strict)
         SELECT strict,
                CASE WHEN numnode(strict) = 0 THEN strict ELSE regexp_replace(strict::text, ' & (?!!)', ' | ', 'g')::tsquery END AS loose
         FROM parsed),
       chunk_set AS (
         SELECT coalesce(sum(chunk_count), 0)::int AS chunks, count(*)::int AS files, max(modified_on) AS latest
         FROM space_files WHERE app_id = $2::uuid),
       ranked AS (
         SELECT c.file_id, c.position, ts_rank_cd(c.tsv, q.loose)::float8 AS score, (c.tsv @@ q.strict) AS every_term
         FROM space_file_chunks c, q
         WHERE c.app_id = $2::uuid AND c.tsv @@ q.loose
         ORDER BY every_term DESC, score DESC, c.file_id, c.position
         LIMIT $3),
       numbered AS (
         SELECT r.*, row_number() OVER (ORDER BY r.every_term DESC, r.score DESC, r.file_id, r.position) AS n FROM ranked r)
  SELECT CASE WHEN r.n IS NULL OR r.n = 1 THEN s.chunks END AS chunks,
         CASE WHEN r.n IS NULL OR r.n = 1 THEN s.files END AS files,
         CASE WHEN r.n IS NULL OR r.n = 1 THEN s.latest END AS latest,
         CASE WHEN r.n IS NULL OR r.n = 1 THEN (SELECT tsvector_to_array(to_tsvector('english'::regconfig, $1))) END AS lexemes,
         r.file_id::text AS file_id, r.position, r.score
  FROM chunk_set s LEFT JOIN numbered r ON true
  ORDER BY r.n`;

const VECTORS_SQL = `
  SELECT c.file_id::text AS file_id, c.position, c.embedding, c.text, f.name AS file_name
  FROM space_file_chunks c JOIN space_files f ON f.id = c.file_id
  WHERE c.app_id = $1::uuid AND c.embedding IS NOT NULL`;

/** Text of chunks not kept in memory (no vector): store/space-file-chunks.ts's `details`. */
const DETAILS_SQL = `
  WITH wanted AS (SELECT * FROM unnest($2::uuid[], $3::int[]) AS w(file_id, position))
  SELECT c.file_id::text AS file_id, c.position, f.name AS file_name, c.text
  FROM wanted w
  JOIN space_file_chunks c ON c.file_id = w.file_id AND c.position = w.position
  JOIN space_files f ON f.id = c.file_id
  WHERE c.app_id = $1::uuid`;

interface SearchRow {
  chunks: number | null;
  files: number | null;
  latest: Date | null;
  lexemes: string[] | null;
  file_id: string | null;
  position: number | null;
  score: number | null;
}

interface Kept {
  stamp: string;
  rows: (ChunkText & { vector: Float32Array })[];
  byKey: Map<string, ChunkText>;
}

interface EmbeddingsAnswer {
  data?: { index?: number; embedding: number[] }[];
}

const keyOf = (chunk: ChunkKey) => `${chunk.file_id}:${chunk.position}`;

function unitLength(vector: number[]): number[] {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum);
  if (!(norm > 0)) throw new Error('the query vector has no length');
  return vector.map((x) => x / norm);
}

/** space-search for one Space's requests, with its vectors kept per Space and stamp. */
export class FloorSpaceSearch {
  private readonly kept = new Map<string, Promise<Kept>>();

  constructor(
    private readonly pool: Pool,
    private readonly embeddingsUrl: string,
  ) {}

  async search(appId: string, question: string): Promise<{ context: string | null; searchResults: SearchResultItem[] }> {
    const query = question.trim().slice(0, MAX_QUERY_CHARS);
    const embedded = callJson<EmbeddingsAnswer>(`${this.embeddingsUrl}/embeddings`, {
      method: 'POST',
      body: { model: 'text-embedding-3-small', input: [query], encoding_format: 'float' },
    });
    // Awaited below; a failing search first leaves it unheard.
    embedded.catch(() => undefined);
    const { rows } = await this.pool.query<SearchRow>({ name: 'floor-space-search', text: SEARCH_SQL, values: [query, appId, CANDIDATES] });
    const first = rows[0];
    if (!first?.chunks) return { context: null, searchResults: [] };
    const stamp = `${first.files ?? 0}:${first.latest?.getTime() ?? 0}`;
    const ranked: ChunkKey[] = [];
    for (const row of rows) if (row.file_id !== null && row.position !== null) ranked.push({ file_id: row.file_id, position: row.position });
    const answer = await embedded;
    const vector = unitLength(answer.data?.[0]?.embedding ?? []);
    const kept = await this.keptAt(appId, stamp);
    const top = fuseRankings([ranked, nearest(kept, vector)]).slice(0, MAX_RESULTS);
    const hits = await this.hitsOf(appId, kept, { top, lexemes: first.lexemes ?? [] });
    return { context: contextOf(hits), searchResults: searchResultsOf(hits) };
  }

  private async hitsOf(appId: string, kept: Kept, { top, lexemes }: { top: (ChunkKey & { score: number })[]; lexemes: string[] }): Promise<SearchHit[]> {
    const missing = top.filter((chunk) => !kept.byKey.has(keyOf(chunk)));
    const found = new Map<string, ChunkText>();
    if (missing.length > 0) {
      const { rows } = await this.pool.query<ChunkText>(DETAILS_SQL, [appId, missing.map((c) => c.file_id), missing.map((c) => c.position)]);
      for (const row of rows) found.set(keyOf(row), row);
    }
    const snippetOf = snippetsFor(lexemes);
    return top.flatMap((chunk) => {
      const text = kept.byKey.get(keyOf(chunk)) ?? found.get(keyOf(chunk));
      return text ? [{ ...text, score: chunk.score, snippet: snippetOf(text.text) }] : [];
    });
  }

  /** The Space's vectors and texts at `stamp`, read once per stamp however many requests ask at once. */
  private keptAt(appId: string, stamp: string): Promise<Kept> {
    const known = this.kept.get(appId);
    if (known) {
      return known.then((kept) => {
        if (kept.stamp === stamp) return kept;
        if (this.kept.get(appId) === known) this.kept.delete(appId);
        return this.keptAt(appId, stamp);
      });
    }
    const loading = this.load(appId, stamp);
    this.kept.set(appId, loading);
    loading.catch(() => this.kept.delete(appId));
    return loading;
  }

  private async load(appId: string, stamp: string): Promise<Kept> {
    const { rows } = await this.pool.query<ChunkText & { embedding: number[] }>(VECTORS_SQL, [appId]);
    const kept = rows.map(({ file_id, position, text, file_name, embedding }) => ({
      file_id,
      position,
      text,
      file_name,
      vector: Float32Array.from(embedding),
    }));
    return {
      stamp,
      rows: kept,
      byKey: new Map(kept.map(({ file_id, position, text, file_name }) => [keyOf({ file_id, position }), { file_id, position, text, file_name }])),
    };
  }
}

/** The chunks by cosine similarity (unit vectors: a dot product), positive only, ties by file and position. */
function nearest(kept: Kept, vector: number[]): ChunkKey[] {
  const scored: (ChunkKey & { score: number })[] = [];
  for (const row of kept.rows) {
    if (row.vector.length !== vector.length) continue;
    let score = 0;
    for (let i = 0; i < vector.length; i += 1) score += (row.vector[i] as number) * (vector[i] as number);
    if (score > 0) scored.push({ file_id: row.file_id, position: row.position, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.file_id < b.file_id ? -1 : a.file_id > b.file_id ? 1 : a.position - b.position));
  return scored.slice(0, CANDIDATES);
}
