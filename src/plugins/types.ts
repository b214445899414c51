import type { Logger } from 'pino';
import type { z } from 'zod';
import type { ChatMessage } from '../domain/chat';
import type { HttpClient } from '../net/http-client';
import type { ArtifactItem, PluginId, SearchResultItem } from '../domain/plugin-output';

export type { ArtifactItem, PluginId, SearchResultItem };

/** What the plugin works from. */
export interface PluginInput {
  /** The conversation as the model will see it (system, history, the new turn). */
  messages: ChatMessage[];
  /** The last user message's text: the default query of search plugins and prompt of image plugins. */
  query: string;
  /** The request's `files` and `images` (URLs, data URLs, or Space file ids). */
  files: string[];
  images: string[];
  /** The model's tool-call arguments, parsed with the plugin's `toolParameters`, when the model called it (auto_tools). */
  args: Record<string, unknown> | null;
  /** The model's answer, for plugins that act on it (phase `after_model`). */
  answer?: string;
}

/** What one run gives back. Plugin output is data: the runner delimits `context` and labels it as such. */
export interface PluginOutput {
  /**
   * Text for the model (results, transcript); null adds nothing to the conversation. Sources are
   * numbered `[n]` at the start of a line, from 1, matching `searchResults[].index`: the runner
   * renumbers them when several plugins' sources share one conversation.
   */
  context: string | null;
  searchResults: SearchResultItem[];
  artifacts: ArtifactItem[];
  /** USD this run cost (the backend's price per request, image, minute or token). */
  costUsd: number;
  /** A short note for `metadata.warning` (e.g. "2 of 5 pages could not be read"). */
  warning?: string;
}

export interface PluginContext {
  requestId: string;
  /** The Space the request runs in, and the Space whose data it reads (its parent, for a sandbox with `use_parent_custom_data`). */
  space: { id: string; orgId: string; dataSpaceId: string };
  /** The plugin's per-Space settings, parsed with its `settingsSchema` (defaults filled in). */
  settings: unknown;
  privacyLevel: number;
  /** Aborts when the request ends, the client leaves or the plugin's time is up. */
  signal: AbortSignal;
  /** Epoch ms by which the plugin must have answered. */
  deadline: number;
  logger: Logger;
  /** For the operator-configured backend base URLs. */
  backend: HttpClient;
  /** For every URL that comes from a request, a file, a search result or a Space's settings (SSRF-safe). */
  untrusted: HttpClient;
}

/** Why a plugin cannot run in this deployment, or null when it can. */
export type Availability = { available: true } | { available: false; reason: string };

/**
 * A plugin: `src/plugins/<id>/` builds one from the service configuration. It throws `UpstreamError`
 * for backend failures (retryable kinds as for models) and `ApiError` for a request it cannot serve
 * (a file too large, a Space file that does not exist), naming the field.
 */
export interface Plugin {
  readonly id: PluginId;
  /** `before_model`: its output goes into the model's context. `after_model`: it acts on the answer (social-post). */
  readonly phase: 'before_model' | 'after_model';
  /** For the model, when offered as a function tool (auto_tools). */
  readonly description: string;
  /** The tool's arguments (a zod object); its JSON schema is what the model sees. */
  readonly toolParameters: z.ZodObject;
  /** Per-Space settings, stored in the Space's `settings.plugins[id]`; every field has a default. */
  readonly settingsSchema: z.ZodType;
  /** Backends share a concurrency limit across workers: the key of this plugin's backend (e.g. `web-search:searxng`). */
  readonly backendKey: string;
  availability(): Availability;
  run(input: PluginInput, ctx: PluginContext): Promise<PluginOutput>;
}
