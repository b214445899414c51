import type { EmbeddingsConfig } from '../../config/plugins/space-search';
import type { HttpClient } from '../../net/http-client';
import { UpstreamError } from '../../errors/upstream-error';
import type { ChunkKey, ChunkText, RankedChunk, SpaceFileChunkRepository } from '../../store/space-file-chunks';
import { embed, embeddingsCost } from './embeddings';
import { fuseRankings } from './rank-fusion';
import { snippetsFor } from './snippet';
import type { SpaceVectorCache } from './vector-cache';

/** How deep each ranking goes before fusion: enough for a chunk ranked well by only one of them. */
const CANDIDATES = 50;

export interface SearchRequest {
  /** The Space whose files are searched. */
  appId: string;
  query: string;
  limit: number;
  signal: AbortSignal;
  /** Epoch ms by which the search must be done. */
  deadline: number;
}

export interface SearchHit extends ChunkText {
  score: number;
  /** The chunk's words around the query's terms, the terms in `**bold**`. */
  snippet: string;
}

export interface SearchResult {
  hits: SearchHit[];
  /** USD: embedding the query. */
  costUsd: number;
}

export interface SearchDeps {
  chunks: Pick<SpaceFileChunkRepository, 'search' | 'details'>;
  vectors: SpaceVectorCache;
  embeddings: EmbeddingsConfig | null;
  http: HttpClient;
}

/** PostgreSQL queries cannot be cancelled from here; the plugin stops between them once its time is up. */
function stopIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new UpstreamError({ kind: 'aborted', provider: 'space-search', message: 'the Space search was cancelled' });
}

async function queryVector(deps: SearchDeps, request: SearchRequest): Promise<{ vector: number[] | null; costUsd: number }> {
  if (!deps.embeddings) return { vector: null, costUsd: 0 };
  const timeoutMs = Math.max(1, request.deadline - Date.now());
  const result = await embed(deps.http, deps.embeddings, { inputs: [request.query], signal: request.signal, timeoutMs });
  return { vector: result.vectors[0] ?? null, costUsd: embeddingsCost(deps.embeddings, result.promptTokens) };
}

const keyOf = (chunk: ChunkKey) => `${chunk.file_id}:${chunk.position}`;

/**
 * The chosen chunks in rank order, with text, file name and snippet. Their text came with the ranking
 * that found them or is kept in the worker's vector cache; only chunks of a Space too large for the
 * cache that the full-text query did not bring (ranked by PostgreSQL's vector scan) are read again.
 */
async function hitsOf(
  deps: SearchDeps,
  request: SearchRequest,
  { top, known, lexemes }: { top: RankedChunk[]; known: (RankedChunk & Partial<ChunkText>)[]; lexemes: string[] },
): Promise<SearchHit[]> {
  const texts = new Map<string, ChunkText>();
  for (const chunk of known)
    if (chunk.text !== undefined && chunk.file_name !== undefined)
      texts.set(keyOf(chunk), { file_id: chunk.file_id, position: chunk.position, text: chunk.text, file_name: chunk.file_name });
  const missing: RankedChunk[] = [];
  for (const chunk of top) {
    const key = keyOf(chunk);
    if (texts.has(key)) continue;
    const kept = deps.vectors.textOf(request.appId, chunk);
    if (kept) texts.set(key, kept);
    else missing.push(chunk);
  }
  if (missing.length > 0) for (const detail of await deps.chunks.details(request.appId, missing)) texts.set(keyOf(detail), detail);
  const snippetOf = snippetsFor(lexemes);
  return top.flatMap((chunk) => {
    const text = texts.get(keyOf(chunk));
    // A file deleted between the two queries simply drops out.
    return text ? [{ ...text, score: chunk.score, snippet: snippetOf(text.text) }] : [];
  });
}

/**
 * The query's vector, asked for at once when this worker has seen the Space's chunks before: the
 * embeddings call then runs while PostgreSQL ranks the text instead of after it. A Space not seen yet
 * (or seen empty) is searched first, so that a Space without chunks costs no embeddings call.
 */
function earlyQueryVector(deps: SearchDeps, request: SearchRequest): Promise<{ vector: number[] | null; costUsd: number }> | null {
  if (!deps.embeddings || !deps.vectors.hadChunks(request.appId)) return null;
  const early = queryVector(deps, request);
  // Awaited below; a full-text query that fails first leaves it unawaited, and its failure unheard.
  early.catch(() => undefined);
  return early;
}

/**
 * The best chunks of a Space for a query: PostgreSQL full-text ranking alone, or, with an embeddings
 * backend, reciprocal rank fusion of the full-text and cosine rankings. One query reads the Space's
 * chunk set and the full-text ranking with the chunks' text; a Space without chunks answers nothing,
 * without calling the embeddings backend unless the call had started (the Space had chunks a moment
 * ago): its cost is then still counted.
 */
export async function searchChunks(deps: SearchDeps, request: SearchRequest): Promise<SearchResult> {
  if (!request.query) return { hits: [], costUsd: 0 };
  const early = earlyQueryVector(deps, request);
  // The texts of a Space this worker keeps come from its cache: the search sends only the ranking.
  const withTexts = !(deps.embeddings && deps.vectors.holdsTexts(request.appId));
  const found = await deps.chunks.search(request.appId, { query: request.query, limit: deps.embeddings ? CANDIDATES : request.limit, texts: withTexts });
  if (found.chunks === 0) {
    deps.vectors.forget(request.appId);
    return {
      hits: [],
      costUsd: early
        ? await early.then(
            (embedded) => embedded.costUsd,
            () => 0,
          )
        : 0,
    };
  }
  stopIfAborted(request.signal);
  const { vector, costUsd } = await (early ?? queryVector(deps, request));
  stopIfAborted(request.signal);
  const nearest = vector ? await deps.vectors.nearest(request.appId, { stamp: found.stamp, vector, limit: CANDIDATES }) : [];
  const ranked = vector ? fuseRankings([found.ranked, nearest]) : found.ranked;
  const top = ranked.slice(0, request.limit);
  return { hits: await hitsOf(deps, request, { top, known: [...found.ranked, ...nearest], lexemes: found.lexemes }), costUsd };
}
