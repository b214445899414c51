import type { Pool } from 'pg';
import { Prisma } from '../generated/prisma/client';
import { sqlPoolOf, type Db } from './db';

export interface NewChunk {
  text: string;
  /** Unit length, or null when no embeddings backend is configured or it failed. */
  embedding: number[] | null;
}

/** A chunk's place: the file and its 0-based position in it. */
export interface ChunkKey {
  file_id: string;
  position: number;
}

export interface RankedChunk extends ChunkKey {
  /** ts_rank_cd for full text, cosine similarity for vectors. */
  score: number;
}

export interface ChunkText extends ChunkKey {
  file_name: string;
  text: string;
}

/** What one search query answers: the chunk set, the query's stemmed terms, and the ranked chunks. */
export interface ChunkSearch {
  chunks: number;
  stamp: string;
  /** The query's terms as the `english` configuration stems them. */
  lexemes: string[];
  /** With their text and file name unless the search was asked without them (`texts: false`). */
  ranked: (RankedChunk & Partial<ChunkText>)[];
}

/**
 * A row of `search`: the chunk set's figures and the query's terms on the first row alone (the others
 * carry nulls), a chunk's columns null when none matched.
 */
interface SearchRow {
  chunks: number | null;
  files: number | null;
  latest: Date | null;
  lexemes: string[] | null;
  file_id: string | null;
  position: number | null;
  score: number | null;
  text: string | null;
  file_name: string | null;
}

/** The text-search configuration of the generated `tsv` column: queries must use the same one. */
const TS_CONFIG = Prisma.sql`'english'::regconfig`;

/**
 * The query as the user wrote it (`websearch_to_tsquery`: quotes for phrases, `-` to exclude, `or`),
 * relaxed from "every term" to "any term" (a question rarely shares all its words with the passage
 * that answers it); chunks with every term still come first. Exclusions (`& !term`) are kept.
 */
const QUERIES = (query: string) => Prisma.sql`
  WITH parsed AS (SELECT websearch_to_tsquery(${TS_CONFIG}, ${query}) AS strict)
  SELECT strict,
         CASE WHEN numnode(strict) = 0 THEN strict ELSE regexp_replace(strict::text, ' & (?!!)', ' | ', 'g')::tsquery END AS loose
  FROM parsed`;

/** The prepared statement's name for `search` on each pooled connection. */
const SEARCH_STATEMENT = 'space-search:search';

/** Space files' chunks: written by ingestion in one transaction, ranked by the space-search plugin. */
export class SpaceFileChunkRepository {
  private readonly pool: Pool;

  constructor(private readonly db: Db) {
    this.pool = sqlPoolOf(db);
  }

  /**
   * Replaces a file's chunks and marks it ready, all or nothing. False when the file was deleted
   * meanwhile (nothing is written then).
   */
  async replace(fileId: string, { appId, chunks, note }: { appId: string; chunks: NewChunk[]; note: string | null }): Promise<boolean> {
    return this.db.$transaction(async (tx) => {
      const claimed = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM space_files WHERE id = ${fileId}::uuid FOR UPDATE`;
      if (claimed.length === 0) return false;
      await tx.spaceFileChunk.deleteMany({ where: { file_id: fileId } });
      await tx.spaceFileChunk.createMany({
        data: chunks.map((chunk, position) => ({
          file_id: fileId,
          app_id: appId,
          position,
          text: chunk.text,
          ...(chunk.embedding ? { embedding: chunk.embedding } : {}),
        })),
      });
      await tx.spaceFile.update({ where: { id: fileId }, data: { status: 'ready', chunk_count: chunks.length, error: note } });
      return true;
    });
  }

  /** Every embedded chunk of a Space with its vector, text and file name, for ranking in the worker. */
  vectors(appId: string): Promise<(ChunkText & { embedding: number[] })[]> {
    return this.db.$queryRaw<(ChunkText & { embedding: number[] })[]>`
      SELECT c.file_id::text AS file_id, c.position, c.embedding, c.text, f.name AS file_name
      FROM space_file_chunks c JOIN space_files f ON f.id = c.file_id
      WHERE c.app_id = ${appId}::uuid AND c.embedding IS NOT NULL`;
  }

  /**
   * One round trip for a search: the Space's chunk set (how many chunks, and a stamp that changes
   * whenever they do: a file added, re-ingested or deleted changes its count or latest `modified_on`),
   * the query's terms as PostgreSQL stems them (for snippets), and the best chunks by full text with
   * their text and file name: every-term matches first, then by cover density (`ts_rank_cd`). The terms
   * are a sub-select, so PostgreSQL stems the query once; they and the Space's figures come on the first
   * row only, so the worker does not parse them again for every chunk (`npm run bench:plugins --
   * --allocations`: 23 KB of array parsing per completion). Every
   * space-search call runs it, so it goes to the pool under Prisma (see `sqlPoolOf`), as a prepared statement.
   * With `texts: false` the chunks come without their text and file name, for a caller that holds them
   * already (the worker's vector cache): about 1 KB a chunk that PostgreSQL need not send nor the worker parse.
   */
  async search(appId: string, { query, limit, texts = true }: { query: string; limit: number; texts?: boolean }): Promise<ChunkSearch> {
    const statement = Prisma.sql`
      WITH q AS (${QUERIES(query)}),
           chunk_set AS (
             SELECT coalesce(sum(chunk_count), 0)::int AS chunks, count(*)::int AS files, max(modified_on) AS latest
             FROM space_files WHERE app_id = ${appId}::uuid),
           ranked AS (
             SELECT c.file_id, c.position, ${texts ? Prisma.sql`c.text` : Prisma.sql`NULL::text AS text`}, ts_rank_cd(c.tsv, q.loose)::float8 AS score, (c.tsv @@ q.strict) AS every_term
             FROM space_file_chunks c, q
             WHERE c.app_id = ${appId}::uuid AND c.tsv @@ q.loose
             ORDER BY every_term DESC, score DESC, c.file_id, c.position
             LIMIT ${limit}),
           numbered AS (
             SELECT r.*, row_number() OVER (ORDER BY r.every_term DESC, r.score DESC, r.file_id, r.position) AS n FROM ranked r)
      SELECT CASE WHEN r.n IS NULL OR r.n = 1 THEN s.chunks END AS chunks,
             CASE WHEN r.n IS NULL OR r.n = 1 THEN s.files END AS files,
             CASE WHEN r.n IS NULL OR r.n = 1 THEN s.latest END AS latest,
             CASE WHEN r.n IS NULL OR r.n = 1 THEN (SELECT tsvector_to_array(to_tsvector(${TS_CONFIG}, ${query}))) END AS lexemes,
             r.file_id::text AS file_id, r.position, r.score, r.text, ${texts ? Prisma.sql`f.name` : Prisma.sql`NULL::text`} AS file_name
      FROM chunk_set s
      LEFT JOIN ${texts ? Prisma.sql`(numbered r JOIN space_files f ON f.id = r.file_id)` : Prisma.sql`numbered r`} ON true
      ORDER BY r.n`;
    // Named, so each pooled connection parses and plans it once rather than on every search: about a
    // third of the query's PostgreSQL CPU (its text never varies, the query and Space being parameters).
    const name = texts ? SEARCH_STATEMENT : `${SEARCH_STATEMENT}:keys`;
    const { rows } = await this.pool.query<SearchRow>({ name, text: statement.text, values: statement.values });
    const first = rows[0];
    return {
      chunks: first?.chunks ?? 0,
      stamp: `${first?.files ?? 0}:${first?.latest?.getTime() ?? 0}`,
      lexemes: first?.lexemes ?? [],
      ranked: rows.flatMap((row) => {
        if (row.file_id === null || row.position === null || row.score === null) return [];
        const { file_id, position, score, text, file_name } = row;
        return [text === null || file_name === null ? { file_id, position, score } : { file_id, position, score, text, file_name }];
      }),
    };
  }

  /**
   * The chunks nearest to a unit vector, by cosine similarity (a dot product, every stored vector
   * being unit length too), computed by PostgreSQL without pgvector: a scan of the Space's chunks.
   * A chunk with no positive similarity is not near at all and is left out of the ranking.
   */
  nearest(appId: string, { vector, limit }: { vector: number[]; limit: number }): Promise<RankedChunk[]> {
    return this.db.$queryRaw<RankedChunk[]>`
      WITH scored AS (
        SELECT c.file_id, c.position, (SELECT sum(a::float8 * b) FROM unnest(c.embedding, ${vector}::real[]) AS t(a, b)) AS score
        FROM space_file_chunks c
        WHERE c.app_id = ${appId}::uuid AND cardinality(c.embedding) = ${vector.length}
      )
      SELECT file_id::text AS file_id, position, score FROM scored
      WHERE score > 0
      ORDER BY score DESC, file_id, position
      LIMIT ${limit}`;
  }

  /** Text and file name of the chosen chunks (in no particular order). */
  details(appId: string, keys: ChunkKey[]): Promise<ChunkText[]> {
    if (keys.length === 0) return Promise.resolve([]);
    return this.db.$queryRaw<ChunkText[]>`
      WITH wanted AS (SELECT * FROM unnest(${keys.map((k) => k.file_id)}::uuid[], ${keys.map((k) => k.position)}::int[]) AS w(file_id, position))
      SELECT c.file_id::text AS file_id, c.position, f.name AS file_name, c.text
      FROM wanted w
      JOIN space_file_chunks c ON c.file_id = w.file_id AND c.position = w.position
      JOIN space_files f ON f.id = c.file_id
      WHERE c.app_id = ${appId}::uuid`;
  }
}
