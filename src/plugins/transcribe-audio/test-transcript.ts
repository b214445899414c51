import type { LoadedAudio } from './load-audio';
import type { Transcription } from './response';

/** Bytes per second assumed for compressed audio (128 kbit/s), to give the test transcript a duration. */
const COMPRESSED_BYTES_PER_SECOND = 16_000;
/** Size of the canonical WAV header, in bytes. */
const WAV_HEADER_BYTES = 44;

/** Seconds of audio: a WAV file's own byte rate, else an estimate at 128 kbit/s; rounded to 0.1 s. */
function durationOf(bytes: Buffer): number {
  const isWav = bytes.length >= WAV_HEADER_BYTES && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WAVE';
  const byteRate = isWav ? bytes.readUInt32LE(28) : 0;
  const seconds = byteRate > 0 ? (bytes.length - WAV_HEADER_BYTES) / byteRate : bytes.length / COMPRESSED_BYTES_PER_SECOND;
  return Math.round(seconds * 10) / 10;
}

/**
 * `TRANSCRIBE_BACKEND=test`: a fixed sentence naming the file, its size and format, with no speech
 * recognised and no network call (docs/plugins/transcribe-audio.md), in English, with a duration from
 * the file (so the cost and the length limit apply as for a real backend).
 */
export function testTranscription(audio: Pick<LoadedAudio, 'name' | 'bytes' | 'format'>): Transcription {
  return {
    text: `Test transcript (TRANSCRIBE_BACKEND=test), not a transcription: ${audio.name} holds ${audio.bytes.length} bytes of ${audio.format.mimeType} audio.`,
    language: 'english',
    durationSeconds: durationOf(audio.bytes),
  };
}
