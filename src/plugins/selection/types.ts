import type { PluginId } from '../types';

/** What pre-selection reads: the request's content, never the model's. */
export interface SelectionInput {
  /**
   * The last user turn's text only (see `lastUserText`). Earlier turns are left out on purpose: a
   * "thanks!" after a search must not search again, and a plugin an earlier turn needed has already run.
   */
  text: string;
  /** The request's `files` (URLs, data URLs, Space file ids). */
  files: readonly string[];
  /** The request's `images` (URLs, data URLs). */
  images: readonly string[];
  /** Whether the Space (or the parent whose data it reads) holds any files: space-search is pointless otherwise. */
  spaceHasFiles: boolean;
}

/** One chosen plugin, for `metadata` ("which plugins ran and why"). */
export interface Selection {
  plugin: PluginId;
  /** 0..1; a plugin is chosen at 0.5 and above. */
  score: number;
  /** A short sentence for people, e.g. "asks about current events ('latest', 'today')". */
  reason: string;
}

/** How the classifier judged one candidate plugin, chosen or not (for `metadata.extra.auto_tools`). */
export interface Classification extends Selection {
  /** At or above the threshold and not declined: the content asks for it (whether it can run is another matter). */
  wanted: boolean;
  /** The request explicitly declined it ("don't search the web"). */
  declined: boolean;
}

export interface SelectionOptions {
  /** The date "recent years" are counted from (default: now); fixed in tests and the evaluation. */
  now?: Date;
}
