/**
 * The embeddings call and its price, shared by space-search (queries) and the Space-file ingestion in
 * services/ (chunks): services import plugin code through src/plugins' top-level files only.
 */
export { embed, embeddingsCost, type Embeddings, type EmbedRequest } from './space-search/embeddings';
