import type { PluginDescriptor } from '../types';

/** `image-generation-generic`: never cached (asking again means a new image, and a hit would be free). */
export const imageGenerationDescriptor: PluginDescriptor = {
  id: 'image-generation-generic',
  aliases: [],
  toolName: 'generate_image',
  cacheable: false,
};
