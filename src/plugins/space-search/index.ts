import { z } from 'zod';
import type { SpaceSearchConfig } from '../../config/plugins/space-search';
import { spaceSearchSettings } from '../../schemas/plugin-settings';
import type { Db } from '../../store/db';
import { SpaceFileChunkRepository } from '../../store/space-file-chunks';
import type { Plugin, PluginId } from '../types';
import { outputOf } from './present-results';
import { searchChunks } from './search-chunks';
import { SpaceVectorCache } from './vector-cache';
import { settingsReader } from '../settings-reader';

const readSettings = settingsReader(spaceSearchSettings);

export { createSpaceFileReader, type SpaceFileContent, type SpaceFileReader } from './file-reader';

/** Longest query searched, in characters: the last user message can be a whole document. */
const MAX_QUERY_CHARS = 1000;

const toolParameters = z.object({
  query: z
    .string()
    .min(1)
    .max(MAX_QUERY_CHARS)
    .describe('What to look for in the Space files: keywords or a question. "Quotes" for a phrase, -word to exclude.'),
});

export interface SpaceSearchDeps {
  db: Db;
}

function queryOf(args: Record<string, unknown> | null, fallback: string): string {
  const given = typeof args?.query === 'string' ? args.query : fallback;
  return given.trim().slice(0, MAX_QUERY_CHARS);
}

function build(id: PluginId, config: SpaceSearchConfig, { db }: SpaceSearchDeps): Plugin {
  const chunks = new SpaceFileChunkRepository(db);
  const vectors = new SpaceVectorCache(chunks);
  return {
    id,
    phase: 'before_model',
    description: 'Searches the files uploaded to this Space (documents, notes, data) and returns the most relevant passages as numbered sources.',
    toolParameters,
    settingsSchema: spaceSearchSettings,
    // Full text runs in our own PostgreSQL; only a remote embeddings backend is shared and limited (the test model's vectors are computed here).
    backendKey: config.embeddings && config.embeddings.backend !== 'test' ? 'space-search:embeddings' : 'space-search:postgres',
    // PostgreSQL full-text search is always there; embeddings only refine the ranking.
    availability: () => ({ available: true }),
    run: async (input, ctx) => {
      const settings = readSettings(ctx.settings);
      const { hits, costUsd } = await searchChunks(
        { chunks, vectors, embeddings: config.embeddings, http: ctx.backend },
        { appId: ctx.space.dataSpaceId, query: queryOf(input.args, input.query), limit: settings.max_results, signal: ctx.signal, deadline: ctx.deadline },
      );
      return outputOf(hits, costUsd);
    },
  };
}

/** The `space-search` plugin: the top chunks of the Space's files (its parent's, for a sandbox using the parent's data). */
export function createSpaceSearchPlugin(config: SpaceSearchConfig, deps: SpaceSearchDeps): Plugin {
  return build('space-search', config, deps);
}

/** The same plugin under its old id, which logged requests and older clients still name. */
export function createLegacyFileSearchPlugin(config: SpaceSearchConfig, deps: SpaceSearchDeps): Plugin {
  return build('legacy-file-search', config, deps);
}
