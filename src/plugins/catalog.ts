import { PLUGIN_IDS } from '../domain/plugin-output';
import { imageGenerationDescriptor } from './image-generation-generic/descriptor';
import { socialPostDescriptor } from './social-post/descriptor';
import { spaceSearchDescriptor } from './space-search/descriptor';
import { transcribeAudioDescriptor } from './transcribe-audio/descriptor';
import type { PluginDescriptor, PluginId } from './types';
import { webSearchDescriptor } from './web-search/descriptor';

/**
 * Every plugin's descriptor, one entry per plugin: what the pipeline reads instead of naming plugins.
 * Every id of the contract's table (`PLUGIN_IDS`) is one plugin's id or one of its aliases.
 */
export const PLUGIN_DESCRIPTORS: readonly PluginDescriptor[] = [
  webSearchDescriptor,
  spaceSearchDescriptor,
  imageGenerationDescriptor,
  transcribeAudioDescriptor,
  socialPostDescriptor,
];

/** Each id and alias → its plugin's descriptor; built once, and checked whole at load (a missing id is a programming error). */
const BY_ID: ReadonlyMap<PluginId, PluginDescriptor> = (() => {
  const byId = new Map<PluginId, PluginDescriptor>();
  for (const descriptor of PLUGIN_DESCRIPTORS) {
    for (const id of [descriptor.id, ...descriptor.aliases]) {
      if (byId.has(id)) throw new Error(`plugin id ${id} is declared twice in the plugin catalog`);
      byId.set(id, descriptor);
    }
  }
  const missing = PLUGIN_IDS.filter((id) => !byId.has(id));
  if (missing.length > 0) throw new Error(`the plugin catalog has no descriptor for ${missing.join(', ')}`);
  return byId;
})();

/** The descriptor of a plugin, named by its id or an alias. */
export function descriptorOf(id: PluginId): PluginDescriptor {
  return BY_ID.get(id) as PluginDescriptor;
}

/** The id a plugin named by an alias runs as (`legacy-file-search` → `space-search`); an id is its own. */
export function canonicalPluginId(id: PluginId): PluginId {
  return descriptorOf(id).id;
}

/** Whether the id is an alias, an older name of another plugin. */
export function isPluginAlias(id: PluginId): boolean {
  return canonicalPluginId(id) !== id;
}

/** The function name the model calls the plugin by, or null for an alias (never offered: the model sees each plugin once). */
export function toolNameOf(id: PluginId): string | null {
  return isPluginAlias(id) ? null : descriptorOf(id).toolName;
}
