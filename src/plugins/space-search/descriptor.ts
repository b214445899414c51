import type { PluginDescriptor } from '../types';

/** `space-search`: never cached (a deleted file's text must not keep being served); nothing to do in a Space without files. */
export const spaceSearchDescriptor: PluginDescriptor = {
  id: 'space-search',
  // Its old id, which logged requests and older clients still name.
  aliases: ['legacy-file-search'],
  toolName: 'space_search',
  cacheable: false,
  readiness: async (space) => ((await space.hasSearchableFiles()) ? null : { reason: 'no_searchable_files', detail: 'the Space holds no searchable files' }),
};
