import type { PluginOutput, SearchResultItem } from '../types';
import type { SearchHit } from './search-chunks';

/** Chunk numbers start at 1 for people and models; positions are stored from 0. */
const chunkNumber = (hit: SearchHit) => hit.position + 1;

/** `[1] <file name> (chunk n)` then the chunk's text, one source after another. */
export function contextOf(hits: SearchHit[]): string | null {
  if (hits.length === 0) return null;
  return hits.map((hit, i) => `[${i + 1}] ${hit.file_name} (chunk ${chunkNumber(hit)})\n${hit.text}`).join('\n\n');
}

export function searchResultsOf(hits: SearchHit[]): SearchResultItem[] {
  return hits.map((hit, i) => ({
    index: i + 1,
    source: 'space',
    title: hit.file_name,
    file_id: hit.file_id,
    file_name: hit.file_name,
    chunk: chunkNumber(hit),
    score: Number(hit.score.toFixed(6)),
    snippet: hit.snippet,
  }));
}

export function outputOf(hits: SearchHit[], costUsd: number): PluginOutput {
  return { context: contextOf(hits), searchResults: searchResultsOf(hits), artifacts: [], costUsd };
}
