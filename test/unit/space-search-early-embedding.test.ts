import type { HttpClient, HttpRequest } from '../../src/net/http-client';
import { searchChunks, type SearchDeps } from '../../src/plugins/space-search/search-chunks';
import { SpaceVectorCache } from '../../src/plugins/space-search/vector-cache';
import type { ChunkSearch, ChunkText } from '../../src/store/space-file-chunks';

/**
 * When space-search calls the embeddings backend for the query: at once, beside PostgreSQL's full-text
 * query, for a Space whose chunks this worker has seen; after that query otherwise, so that a Space
 * without chunks costs no embeddings call. The repository and the backend are fakes whose answers the
 * test releases, so the order is observed, not timed.
 */

const APP = 'space-1';
const CHUNK: ChunkText = { file_id: 'file-1', position: 0, text: 'Winter charging takes longer.', file_name: 'ev.md' };
const EMBEDDINGS = { baseUrl: 'http://embeddings.invalid/v1', model: 'test-embedding', costUsdPerMtok: 1 };

interface Pending<T> {
  promise: Promise<T>;
  release(value: T): void;
}

function pending<T>(): Pending<T> {
  let release: (value: T) => void = () => undefined;
  const promise = new Promise<T>((resolve) => {
    release = resolve;
  });
  return { promise, release };
}

/** A Space whose chunk set has `state.chunks` chunks; `search` answers only when the test releases it. */
function fakeSpace(chunks: number) {
  const searches: Pending<ChunkSearch>[] = [];
  const state = { chunks };
  const found = (): ChunkSearch => ({
    chunks: state.chunks,
    stamp: `stamp-${state.chunks}`,
    lexemes: ['winter'],
    ranked: state.chunks > 0 ? [{ ...CHUNK, score: 1 }] : [],
  });
  const repository = {
    search: () => {
      const search = pending<ChunkSearch>();
      searches.push(search);
      return search.promise;
    },
    details: async () => [],
    vectors: async () => (state.chunks > 0 ? [{ ...CHUNK, embedding: [1, 0] }] : []),
    nearest: async () => [],
  };
  return { repository, state, answerSearch: () => searches.shift()?.release(found()) };
}

/** The embeddings backend: records each call, answers a unit vector. */
function fakeEmbeddings(): { http: HttpClient; calls: HttpRequest[] } {
  const calls: HttpRequest[] = [];
  const http: HttpClient = async (request) => {
    calls.push(request);
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
  return { http, calls };
}

const request = () => ({ appId: APP, query: 'winter charging', limit: 3, signal: new AbortController().signal, deadline: Date.now() + 10_000 });

/** Lets every promise callback that can run, run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function setUp(chunks: number) {
  const space = fakeSpace(chunks);
  const embeddings = fakeEmbeddings();
  const deps: SearchDeps = { chunks: space.repository, vectors: new SpaceVectorCache(space.repository), embeddings: EMBEDDINGS, http: embeddings.http };
  return { space, embeddings, deps };
}

describe('space-search: when the query is embedded', () => {
  it('after the full-text query for a Space this worker has not seen, then beside it once its chunks are known', async () => {
    const { space, embeddings, deps } = setUp(1);
    const first = searchChunks(deps, request());
    await settle();
    expect(embeddings.calls).toHaveLength(0);
    space.answerSearch();
    const firstResult = await first;
    expect(embeddings.calls).toHaveLength(1);
    expect(firstResult.hits.map((hit) => hit.file_id)).toEqual(['file-1']);

    const second = searchChunks(deps, request());
    await settle();
    // The full-text query has not answered yet, and the embeddings call is already out.
    expect(embeddings.calls).toHaveLength(2);
    space.answerSearch();
    const secondResult = await second;
    expect(secondResult.hits.map((hit) => hit.file_id)).toEqual(['file-1']);
    expect(secondResult.costUsd).toBe(firstResult.costUsd);
  });

  it('counts the cost of a call made for a Space whose chunks were all deleted meanwhile', async () => {
    const { space, embeddings, deps } = setUp(1);
    const first = searchChunks(deps, request());
    await settle();
    space.answerSearch();
    const { costUsd } = await first;
    expect(costUsd).toBeGreaterThan(0);
    space.state.chunks = 0;
    const emptied = searchChunks(deps, request());
    await settle();
    space.answerSearch();
    expect(await emptied).toEqual({ hits: [], costUsd });
    expect(embeddings.calls).toHaveLength(2);
    // Found empty, the Space is searched first again: no more calls.
    const after = searchChunks(deps, request());
    await settle();
    space.answerSearch();
    expect(await after).toEqual({ hits: [], costUsd: 0 });
    expect(embeddings.calls).toHaveLength(2);
  });

  it('never for a Space without chunks', async () => {
    const { space, embeddings, deps } = setUp(0);
    for (let i = 0; i < 2; i++) {
      const search = searchChunks(deps, request());
      await settle();
      space.answerSearch();
      expect(await search).toEqual({ hits: [], costUsd: 0 });
    }
    expect(embeddings.calls).toHaveLength(0);
  });
});
