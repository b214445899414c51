import type { Logger } from 'pino';
import type { z } from 'zod';
import type { ChatMessage } from '../domain/chat';
import type { HttpClient } from '../net/http-client';
import type { ArtifactItem, PluginId, SearchResultItem } from '../domain/plugin-output';
import type { AutoToolsSkipReason } from '../domain/completion';

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

/** What a Space holds, as far as a plugin's readiness asks: each fact is read only when asked, once per Space snapshot. */
export interface SpaceFacts {
  /** Whether the Space (or the parent whose data it reads) holds any searchable files. */
  hasSearchableFiles(): Promise<boolean>;
}

/** Why a plugin has nothing to do in a Space: auto_tools skips it with this reason. */
export interface NotReady {
  reason: Extract<AutoToolsSkipReason, 'no_searchable_files'>;
  /** A sentence for people, in `metadata.extra.auto_tools`. */
  detail: string;
}

/**
 * What the pipeline knows of a plugin without building it: static facts that each plugin's folder
 * declares (`src/plugins/<id>/descriptor.ts`) and `catalog.ts` lists. The pipeline decides by these,
 * never by a plugin's id. Whether a plugin feeds the model's context or acts on its answer is the
 * built plugin's `phase`.
 */
export interface PluginDescriptor {
  /** The id the contract names it by. */
  readonly id: PluginId;
  /**
   * Older ids a request may still name it by: each runs the same plugin, logged under the id named, and
   * runs once with it. auto_tools neither considers nor offers an alias.
   */
  readonly aliases: readonly PluginId[];
  /** The function name the model calls it by in auto_tools' tool loop (unique across plugins). */
  readonly toolName: string;
  /**
   * Whether its output may be served from the result cache (privacy level 1 only): true only when the
   * output is a function of the cache key. Not for plugins reading Space files (a deleted file's text must
   * not keep being served), making something new each time (an image), or acting (a post must happen).
   */
  readonly cacheable: boolean;
  /**
   * Under auto_tools, why the Space's stored settings for it keep auto_tools from using it (a plugin
   * that acts for the Space waits for the Space's consent), or null. Absent: auto_tools may use it.
   */
  autoToolsRefusal?(stored: unknown): string | null;
  /**
   * For a plugin whose effect is the point of a request that names it: why the Space's stored settings
   * leave it nothing to act with (no account), or null. The request then fails before anything is spent.
   */
  settingsProblem?(stored: unknown): string | null;
  /** Whether it has anything to do in the Space (pre-selection skips it otherwise); null when it has. Absent: always. */
  readiness?(space: SpaceFacts): Promise<NotReady | null>;
}
