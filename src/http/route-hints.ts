/**
 * What serves the need of an OpenAI route Switchyard does not have, for the 404 of a request to it: a
 * client (or a person) trying the OpenAI API's other endpoints learns where that need is met here.
 */
const HINTS: Record<string, string> = {
  'POST /v1/images/generations':
    'Images are made by the plugin image-generation-generic: send POST /v1/chat/completions with "plugins": ["image-generation-generic"]; the images come back in metadata.generated_artifacts (docs/plugins/images-and-audio.md).',
  'POST /v1/audio/transcriptions':
    'Audio is transcribed by the plugin transcribe-audio: send POST /v1/chat/completions with "plugins": ["transcribe-audio"] and the audio (a URL, a data URL or a Space file id) in "files" (docs/plugins/images-and-audio.md).',
  'POST /v1/moderations': "Switchyard has no moderation endpoint: call your provider's moderation API directly.",
  'POST /v1/completions': 'The legacy completions API is not offered: send POST /v1/chat/completions with the prompt as a user message.',
};

/** The hint for a request to a route that does not exist, or null. */
export function routeHint(method: string, path: string): string | null {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return HINTS[`${method.toUpperCase()} ${trimmed}`] ?? null;
}
