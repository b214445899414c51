/** Inputs of one embeddings call: texts, or texts already split into token ids (one array per input). */
export type EmbeddingInputs = string[] | number[][];

/** An embeddings call as the providers take it. */
export interface EmbeddingRequest {
  /** The provider's own model name (the catalog's `namespace`). */
  model: string;
  inputs: EmbeddingInputs;
  /** Shorter vectors, for the models that can give them (OpenAI's text-embedding-3). */
  dimensions?: number;
  /** The end user, passed on where the provider takes it. */
  user?: string;
}

/** What a provider answered: one vector per input, in input order. */
export interface EmbeddingResult {
  vectors: number[][];
  /** Input tokens, as the provider counted them (0 when it did not say). */
  promptTokens: number;
}
