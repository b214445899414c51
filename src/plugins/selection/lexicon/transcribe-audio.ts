import { AUDIO_FILE_NAME } from '../audio-files';
import { cue, type PluginModel, words } from '../cue';
import { codeCues } from './code-context';

/**
 * transcribe-audio: the text asks for a transcript or what is said in a recording. An attached audio
 * file is weighed in `select-plugins.ts` (it is not in the text); these are the text's cues.
 */

const TRANSCRIBE = words(
  'transcri(?:be|bed|bing|pts?|ption)',
  'transkri\\p{L}*',
  'transcrire',
  'transcri(?:bir|be)',
  'speech[- ]to[- ]text',
  'write (?:out|down) what',
  'type up',
  'convert (?:this|the|it|that|my)(?: [\\p{L}-]+){0,3} (?:to|into) text',
  '(?:to|into) (?:plain )?text',
  'what (?:does|did|do) (?:he|she|they|the speaker|the man|the woman|the caller|i) say',
  "what's said",
  'verbatim',
  'qué dice',
);

const RECORDING = words(
  'audio(?: file| clip| recording)?',
  'recordings?',
  'voice ?(?:note|message|memo)s?',
  'voicemail',
  'podcast(?: episode)?',
  'sprachnachricht',
  'message vocal',
  'dictation',
  'lecture',
  'interview',
  'speaker',
  'call',
);

/** Senses of "transcribe" that are not about audio: DNA to RNA, words to IPA. */
const NOT_AUDIO = words('dna', 'rna', 'mrna', 'gene', 'protein', 'ipa', 'phonetic(?:s| alphabet)?', 'script', 'compress', 'codecs?', 'how do');

export const TRANSCRIBE_AUDIO_MODEL: PluginModel = {
  bias: -3,
  cues: [
    cue(TRANSCRIBE, 3.5, { group: 'ask', reason: 'asks for a transcript', explicit: true }),
    cue(AUDIO_FILE_NAME, 2, { group: 'recording', reason: 'names an audio file' }),
    cue(RECORDING, 1, { group: 'recording', reason: 'mentions a recording' }),
    cue(NOT_AUDIO, -4, { group: 'not-audio', reason: 'means another sense of the word' }),
    ...codeCues({ task: -5, term: -3, syntax: -3 }),
  ],
};
