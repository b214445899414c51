import type { EmbeddingsConfig } from '../../config/plugins/space-search';
import type { HttpClient } from '../../net/http-client';
import { ProviderError } from '../../providers/provider-error';
import type { ChunkDetail, ChunkKey, SpaceFileChunkRepository } from '../../store/space-file-chunks';
import { embed, embeddingsCost } from './embeddings';
import { fuseRankings } from './rank-fusion';
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

export interface SearchHit extends ChunkDetail {
  score: number;
}

export interface SearchResult {
  hits: SearchHit[];
  /** USD: embedding the query. */
  costUsd: number;
}

export interface SearchDeps {
  chunks: SpaceFileChunkRepository;
  vectors: SpaceVectorCache;
  embeddings: EmbeddingsConfig | null;
  http: HttpClient;
}

/** PostgreSQL queries cannot be cancelled from here; the plugin stops between them once its time is up. */
function stopIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new ProviderError({ kind: 'aborted', provider: 'space-search', message: 'the Space search was cancelled' });
}

async function queryVector(deps: SearchDeps, request: SearchRequest): Promise<{ vector: number[] | null; costUsd: number }> {
  if (!deps.embeddings) return { vector: null, costUsd: 0 };
  const timeoutMs = Math.max(1, request.deadline - Date.now());
  const result = await embed(deps.http, deps.embeddings, { inputs: [request.query], signal: request.signal, timeoutMs });
  return { vector: result.vectors[0] ?? null, costUsd: embeddingsCost(deps.embeddings, result.promptTokens) };
}

/** Chosen chunks in rank order, with their text, file name and snippet. */
async function withDetails(deps: SearchDeps, request: SearchRequest, ranked: (ChunkKey & { score: number })[]): Promise<SearchHit[]> {
  const top = ranked.slice(0, request.limit);
  const details = await deps.chunks.details(request.appId, { keys: top, query: request.query });
  const byKey = new Map(details.map((detail) => [`${detail.file_id}:${detail.position}`, detail]));
  return top.flatMap((chunk) => {
    const detail = byKey.get(`${chunk.file_id}:${chunk.position}`);
    // A file deleted between the two queries simply drops out.
    return detail ? [{ ...detail, score: chunk.score }] : [];
  });
}

/**
 * The best chunks of a Space for a query: PostgreSQL full-text ranking alone, or, with an embeddings
 * backend, reciprocal rank fusion of the full-text and cosine rankings. A Space without chunks
 * answers nothing, without calling the embeddings backend.
 */
export async function searchChunks(deps: SearchDeps, request: SearchRequest): Promise<SearchResult> {
  if (!request.query) return { hits: [], costUsd: 0 };
  const chunkSet = await deps.chunks.chunkSet(request.appId);
  if (chunkSet.chunks === 0) return { hits: [], costUsd: 0 };
  // The full-text ranking runs while the query is embedded: the request waits for the slower of the two.
  const [{ vector, costUsd }, fullText] = await Promise.all([
    queryVector(deps, request),
    deps.chunks.fullText(request.appId, { query: request.query, limit: deps.embeddings ? CANDIDATES : request.limit }),
  ]);
  stopIfAborted(request.signal);
  const ranked = vector ? fuseRankings([fullText, await deps.vectors.nearest(request.appId, { stamp: chunkSet.stamp, vector, limit: CANDIDATES })]) : fullText;
  stopIfAborted(request.signal);
  return { hits: await withDetails(deps, request, ranked), costUsd };
}
