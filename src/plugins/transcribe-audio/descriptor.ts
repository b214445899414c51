import type { PluginDescriptor } from '../types';

/** `transcribe-audio`: never cached (it may read Space files, which can be deleted). */
export const transcribeAudioDescriptor: PluginDescriptor = {
  id: 'transcribe-audio',
  aliases: [],
  toolName: 'transcribe_audio',
  cacheable: false,
};
