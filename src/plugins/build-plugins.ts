import type { Config } from '../config/schema';
import type { SecretBox } from '../secrets/secret-box';
import type { Db } from '../store/db';
import { PLUGIN_DESCRIPTORS } from './catalog';
import { createImageGenerationPlugin } from './image-generation-generic';
import { createSocialPostPlugin } from './social-post';
import { createSpaceFileReader, createSpaceSearchPlugin } from './space-search';
import { createTranscribeAudioPlugin } from './transcribe-audio';
import type { Plugin, PluginId } from './types';
import { createWebSearchPlugin } from './web-search';

/** What building the plugins takes: the plugins' configuration, the database (Space files, secrets, posts) and the secret box. */
export interface PluginBuildInputs {
  config: Config['plugins'];
  db: Db;
  /** Opens the Spaces' sealed credentials (social-post); null when the service has no `PLUGIN_SECRETS_KEY`. */
  secrets: SecretBox | null;
}

type Build = (inputs: PluginBuildInputs) => Plugin;

/** How each plugin of the catalog is built, by its id. */
export const PLUGIN_BUILDERS: Readonly<Partial<Record<PluginId, Build>>> = {
  'web-search': ({ config }) => createWebSearchPlugin(config.webSearch),
  'space-search': ({ config, db }) => createSpaceSearchPlugin(config.spaceSearch, { db }),
  'image-generation-generic': ({ config }) => createImageGenerationPlugin(config.media.images),
  'transcribe-audio': ({ config, db }) => createTranscribeAudioPlugin(config.media.transcribe, { spaceFiles: createSpaceFileReader({ db }) }),
  'social-post': ({ config, db, secrets }) => createSocialPostPlugin(config.socialPost, { db, secrets }),
};

/**
 * Every plugin of the catalog, built from the service configuration (each says itself whether it can
 * run), under its id and each of its aliases: an alias is the same plugin reporting the id it was named by.
 */
export function buildPlugins(inputs: PluginBuildInputs): Map<PluginId, Plugin> {
  const plugins = new Map<PluginId, Plugin>();
  for (const { id, aliases } of PLUGIN_DESCRIPTORS) {
    const build = PLUGIN_BUILDERS[id];
    if (!build) throw new Error(`the plugin ${id} has a descriptor but no builder (src/plugins/build-plugins.ts)`);
    const plugin = build(inputs);
    plugins.set(id, plugin);
    // Plugins are plain objects: a copy with the alias as its id is the same plugin (one backend, one cache).
    for (const alias of aliases) plugins.set(alias, { ...plugin, id: alias });
  }
  return plugins;
}
