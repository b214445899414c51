import type { z } from 'zod';
import type { transcribeAudioSettings } from '../../schemas/plugin-settings';
import type { AudioFormat } from './audio-format';

export type TranscribeAudioSettings = z.infer<typeof transcribeAudioSettings>;

/**
 * `verbose_json` gives the language and the duration (what the limit and the cost need). OpenAI's
 * gpt-4o transcription models refuse it with 400 and take `json` only (text, and token usage).
 */
export function transcriptionResponseFormat(model: string): 'verbose_json' | 'json' {
  return /^gpt-4o.*transcribe/i.test(model) ? 'json' : 'verbose_json';
}

/** The multipart body of `POST {base}/audio/transcriptions`. */
export function toTranscriptionForm({
  audio,
  settings,
}: {
  audio: { bytes: Buffer; name: string; format: AudioFormat };
  settings: TranscribeAudioSettings;
}): FormData {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(audio.bytes)], { type: audio.format.mimeType }), audio.name);
  form.append('model', settings.model);
  form.append('response_format', transcriptionResponseFormat(settings.model));
  if (settings.language) form.append('language', settings.language);
  return form;
}
