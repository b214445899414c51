import type { ChatRequest } from './chat';
import type { PluginId } from './plugin-output';
import type { FeatureFlags, Policies, Weights } from './space-policies';

/** What the request named that the worker reads from the database (each checked as the caller's before anything runs). */
export interface StoredReferences {
  /** The assistant whose configuration applies: the request's, else the Space's (`settings.assistant_id`). */
  assistantId: string | null;
  /** A version of it: the request's, else (only with the Space's assistant) the Space's. */
  assistantVersionId: string | null;
  /** Which request field named the assistant: a missing one answers 404 naming that field; null when the Space named it. */
  assistantNamedBy: 'assistant_id' | 'assistant_version_id' | null;
  conversationId: string | null;
  parentRequestId: string | null;
}

/** The Space's defaults, applied where neither the request nor its assistant set a value. */
export interface SpaceDefaults {
  instructions: string | null;
  max_tokens: number | null;
  temperature: number | null;
}

/** The Space's policies with the request's overrides; the level the request runs at is the job's own (`CompletionJob.privacyLevel`). */
export type RequestPolicies = Omit<Policies, 'privacy_level'>;

/**
 * A chat completion as the API accepted it, decided once at intake from the wire body and the Space: the
 * request's own parameters in the domain's shape, the Space's and the request's weights, policies and flags
 * merged, the forwarded fields set apart. What the request names in the database (an assistant, a
 * conversation, a parent request) is only named here: the worker reads it (`stored`), and layers the
 * assistant between the request and the Space's `defaults`.
 *
 * It travels in the job as JSON, so what is empty or at its default is left out (most requests name no
 * labels, headers, plugins, images or files): readers take an absent field as empty.
 */
export interface RequestedCompletion {
  /** The request's own parameters; `messages` are the client's, without the instructions or history layered later. */
  chat: Omit<ChatRequest, 'model'>;
  /** The model the caller named; absent asks for automatic selection (the model left out, or the automatic name). */
  model?: string;
  weights: Weights;
  policies: RequestPolicies;
  /** Absent: no flag set. */
  flags?: FeatureFlags;
  /** Absent: none. */
  labels?: Record<string, string | number | boolean>;
  /** Extra HTTP headers for every upstream call (`custom_headers.headers`, checked at the edge); absent: none. */
  forwardedHeaders?: Record<string, string>;
  /** Plugins the request named, each once, by its own id (an old alias is already its plugin's id); absent: none. */
  plugins?: PluginId[];
  /** Images and files the request handed to plugins (URLs or ids); absent: none. */
  images?: string[];
  files?: string[];
  /** Present when the request or its Space names anything stored: the worker reads it before anything runs. */
  stored?: StoredReferences;
  /** Present when the Space sets any default. */
  defaults?: SpaceDefaults;
  /** Present (true) for a streamed answer; absent: one JSON answer. */
  stream?: true;
}
