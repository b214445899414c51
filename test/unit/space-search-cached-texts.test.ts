import type { HttpClient } from '../../src/net/http-client';
import { searchChunks, type SearchDeps } from '../../src/plugins/space-search/search-chunks';
import { SpaceVectorCache } from '../../src/plugins/space-search/vector-cache';
import type { ChunkKey, ChunkSearch, ChunkText } from '../../src/store/space-file-chunks';

/**
 * Space-search asks PostgreSQL for the full-text ranking without the chunks' texts when this worker's
 * vector cache keeps the Space's chunks, and takes the chosen chunks' texts from the cache, also for a
 * chunk the full text found and the vectors did not rank (no positive similarity).
 */

const APP = 'space-1';
const NEAR: ChunkText = { file_id: 'file-1', position: 0, text: 'Winter charging takes longer.', file_name: 'ev.md' };
const FAR: ChunkText = { file_id: 'file-2', position: 3, text: 'Charging at work is free in winter.', file_name: 'policy.md' };
const EMBEDDINGS = { baseUrl: 'http://embeddings.invalid/v1', model: 'test-embedding', costUsdPerMtok: 1 };

function setUp() {
  const searches: boolean[] = [];
  const detailsAsked: ChunkKey[][] = [];
  const repository = {
    search: async (_appId: string, { texts = true }: { query: string; limit: number; texts?: boolean }): Promise<ChunkSearch> => {
      searches.push(texts);
      const ranked = [FAR, NEAR].map((chunk, i) =>
        texts ? { ...chunk, score: 1 - i / 10 } : { file_id: chunk.file_id, position: chunk.position, score: 1 - i / 10 },
      );
      return { chunks: 2, stamp: 'stamp-1', lexemes: ['winter', 'charg'], ranked };
    },
    details: async (_appId: string, keys: ChunkKey[]) => {
      detailsAsked.push(keys);
      return [];
    },
    vectors: async () => [
      { ...NEAR, embedding: [1, 0] },
      { ...FAR, embedding: [-1, 0] },
    ],
    nearest: async () => [],
  };
  const http: HttpClient = async (request) => {
    const body = { data: [{ index: 0, embedding: [1, 0] }], usage: { prompt_tokens: 4 } };
    return {
      status: 200,
      url: request.url,
      headers: { get: () => null },
      body: Buffer.from(JSON.stringify(body)),
      text: () => JSON.stringify(body),
      json: () => body,
    };
  };
  const deps: SearchDeps = { chunks: repository, vectors: new SpaceVectorCache(repository), embeddings: EMBEDDINGS, http };
  return { deps, searches, detailsAsked };
}

const request = () => ({ appId: APP, query: 'winter charging', limit: 3, signal: new AbortController().signal, deadline: Date.now() + 10_000 });

describe("space-search: chunk texts from the worker's vector cache", () => {
  it('asks for texts while the cache does not keep the Space, then for the ranking alone, with the same hits', async () => {
    const { deps, searches, detailsAsked } = setUp();
    const first = await searchChunks(deps, request());
    const second = await searchChunks(deps, request());
    expect(searches).toEqual([true, false]);
    expect(detailsAsked).toEqual([]);
    expect(second.hits).toEqual(first.hits);
    expect(second.hits.map((hit) => [hit.file_name, hit.text])).toEqual(
      expect.arrayContaining([
        [NEAR.file_name, NEAR.text],
        [FAR.file_name, FAR.text],
      ]),
    );
    expect(second.hits.find((hit) => hit.file_id === FAR.file_id)?.snippet).toBe('**Charging** at work is free in **winter**.');
  });
});
