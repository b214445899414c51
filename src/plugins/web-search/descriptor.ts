import type { PluginDescriptor } from '../types';

/** `web-search`: a function of its query and settings, so its output may be cached. */
export const webSearchDescriptor: PluginDescriptor = {
  id: 'web-search',
  aliases: [],
  toolName: 'web_search',
  cacheable: true,
};
