/** The plugin ids of the contract's plugin table. */
export const PLUGIN_IDS = ['space-search', 'web-search', 'image-generation-generic', 'transcribe-audio', 'social-post', 'legacy-file-search'] as const;

export type PluginId = (typeof PLUGIN_IDS)[number];

/**
 * One entry of `metadata.search_results.items` (the contract leaves the shape open). `index` is the
 * source number the model sees (`[1]`, `[2]`, ...), so an answer's markers map back to its entry.
 */
export interface SearchResultItem {
  index: number;
  source: 'web' | 'space';
  title: string;
  /** Web results: the page. */
  url?: string;
  /** Space results: the file and the chunk within it. */
  file_id?: string;
  file_name?: string;
  chunk?: number;
  /** The backend's relevance (higher is better; scales differ per backend). */
  score: number;
  snippet: string;
  published_at?: string;
}

/** One entry of `metadata.generated_artifacts.items`. */
export type ArtifactItem =
  | { type: 'image'; plugin: PluginId; mime_type: string; url?: string; b64_json?: string; size?: string; revised_prompt?: string }
  | { type: 'transcript'; plugin: PluginId; text: string; language?: string; duration_seconds?: number; source: string }
  | { type: 'social_post'; plugin: PluginId; network: 'mastodon' | 'bluesky'; url: string; id: string };
