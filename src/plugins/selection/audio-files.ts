/**
 * Which of a request's files are audio, from what the reference itself says: a data URL's MIME type,
 * or the extension of a file name or URL path (or a `format=`/`type=` query parameter). A Space file
 * id says nothing, so it is not counted: the text has to ask for a transcript then.
 */

/** What OpenAI-compatible transcription backends accept, plus the common phone formats (amr, 3gp). */
const AUDIO_EXTENSIONS = ['mp3', 'mpga', 'mpeg', 'm4a', 'mp4', 'wav', 'wave', 'ogg', 'oga', 'opus', 'flac', 'webm', 'aac', 'amr', 'aiff', 'aif', 'wma', '3gp'];

const AUDIO_DATA_URL = /^data:(?:audio\/|video\/(?:mp4|webm|ogg))/iu;
const AUDIO_EXTENSION = new RegExp(`\\.(?:${AUDIO_EXTENSIONS.join('|')})$`, 'iu');
const AUDIO_QUERY = new RegExp(`[?&](?:format|type|ext)=(?:audio(?:%2F|/)[a-z0-9.+-]+|${AUDIO_EXTENSIONS.join('|')})(?:&|$)`, 'iu');

/** An audio file name or URL mentioned in the text ("please transcribe lecture3.mp3"). */
export const AUDIO_FILE_NAME = new RegExp(`[\\p{L}\\p{N}_-]\\.(?:${AUDIO_EXTENSIONS.join('|')})(?![\\p{L}\\p{N}])`, 'giu');

export function isAudioFile(reference: string): boolean {
  const ref = reference.trim();
  if (ref.startsWith('data:')) return AUDIO_DATA_URL.test(ref);
  const queryAt = ref.search(/[?#]/u);
  const path = queryAt >= 0 ? ref.slice(0, queryAt) : ref;
  return AUDIO_EXTENSION.test(path) || (queryAt >= 0 && AUDIO_QUERY.test(ref.slice(queryAt)));
}

/** A short name for the reason: the file name, or "a data URL". */
export function audioFileLabel(reference: string): string {
  if (reference.startsWith('data:')) return 'an audio data URL';
  const path = reference.split(/[?#]/u)[0] ?? reference;
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name.length > 0 && name.length <= 60 ? name : 'an audio URL';
}
