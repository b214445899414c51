import { z } from 'zod';
import { UpstreamError } from '../../errors/upstream-error';

const seconds = z.union([
  z.number().nonnegative(),
  z
    .string()
    .regex(/^\d+(\.\d+)?$/)
    .transform(Number),
]);

/** `verbose_json` (text, language, duration) or `json` (text, and usage: seconds billed or tokens). */
const transcriptionResponse = z.looseObject({
  text: z.string(),
  language: z.string().min(1).optional(),
  duration: seconds.optional(),
  usage: z.looseObject({ type: z.string().optional(), seconds: seconds.optional() }).optional(),
});

export interface Transcription {
  text: string;
  language?: string;
  /** From `duration`, else from `usage.seconds` (json answers of whisper-1); absent when the backend says neither. */
  durationSeconds?: number;
}

/** A transcription answer in either JSON format; anything else is `invalid_response`. */
export function fromTranscriptionResponse(body: unknown, provider: string): Transcription {
  const parsed = transcriptionResponse.safeParse(body);
  if (!parsed.success) throw new UpstreamError({ kind: 'invalid_response', provider, message: `${provider} sent an answer that is not a transcription` });
  const { text, language, duration, usage } = parsed.data;
  const durationSeconds = duration ?? (usage?.type === 'duration' ? usage.seconds : undefined);
  return { text: text.trim(), ...(language ? { language } : {}), ...(durationSeconds !== undefined ? { durationSeconds } : {}) };
}

/** USD for one file: OpenAI bills transcription per started second, at a price per minute. */
export function transcriptionCostUsd(durationSeconds: number, usdPerMinute: number): number {
  return (Math.ceil(durationSeconds) / 60) * usdPerMinute;
}
