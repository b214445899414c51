import { z } from 'zod';
import type { TranscribeConfig } from '../../config/plugins/media';
import { ApiError } from '../../errors/api-error';
import { UpstreamError } from '../../errors/upstream-error';
import { transcribeAudioSettings } from '../../schemas/plugin-settings';
import type { ArtifactItem, Availability, Plugin, PluginContext, PluginInput, PluginOutput } from '../types';
import { loadAudio, type LoadedAudio } from './load-audio';
import { toTranscriptionForm, type TranscribeAudioSettings } from './request';
import { fromTranscriptionResponse, transcriptionCostUsd, type Transcription } from './response';
import { audioRefs } from './sources';
import type { SpaceFileReader } from './space-file-reader';
import { testTranscription } from './test-transcript';
import { settingsReader } from '../settings-reader';

const readSettings = settingsReader(transcribeAudioSettings);

export type { SpaceFile, SpaceFileReader } from './space-file-reader';

const PLUGIN_ID = 'transcribe-audio';
/** Who is called, in errors and logs. */
const SERVICE = 'transcriptions';
/** Largest transcription answer read, in bytes (verbose_json of 30 minutes with segments is well under). */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

export const transcribeToolParameters = z.object({
  file: z
    .string()
    .min(1)
    .max(2048)
    .optional()
    .describe("Which of the request's files to transcribe: its URL or Space file id. Absent: every audio file of the request."),
});

type TranscriptArtifact = Extract<ArtifactItem, { type: 'transcript' }>;

export interface TranscribeAudioDeps {
  /** Reads Space files named by id in `files`. */
  spaceFiles: SpaceFileReader;
}

interface Run {
  config: TranscribeConfig;
  settings: TranscribeAudioSettings;
  ctx: PluginContext;
}

/** The backend's transcription (the test backend's, made here with no network call). */
async function transcription(audio: LoadedAudio, { config, settings, ctx }: Run): Promise<Transcription> {
  if (config.backend === 'test') return testTranscription(audio);
  const response = await ctx.backend({
    method: 'POST',
    url: `${config.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`,
    headers: { authorization: `Bearer ${config.apiKey ?? ''}` },
    body: toTranscriptionForm({ audio, settings }),
    signal: ctx.signal,
    timeoutMs: Math.max(1, ctx.deadline - Date.now()),
    maxBytes: MAX_RESPONSE_BYTES,
    service: SERVICE,
  });
  return fromTranscriptionResponse(response.json(), SERVICE);
}

async function transcribe(audio: LoadedAudio, run: Run): Promise<Transcription> {
  const result = await transcription(audio, run);
  if (result.durationSeconds !== undefined && result.durationSeconds > run.config.maxSeconds) {
    throw new ApiError(
      'invalid_value',
      `${audio.param} is ${Math.round(result.durationSeconds)} s long, more than the ${run.config.maxSeconds} s transcribe-audio accepts`,
      audio.param,
    );
  }
  return result;
}

/** The transcripts for the model, each labelled with its source. */
export function transcriptsContext(transcripts: TranscriptArtifact[]): string | null {
  if (transcripts.length === 0) return null;
  return transcripts
    .map((t) => {
      const facts = [t.language, t.duration_seconds !== undefined ? `${Math.round(t.duration_seconds)} s` : undefined].filter(Boolean).join(', ');
      return `Transcript of ${t.source}${facts ? ` (${facts})` : ''}:\n${t.text}`;
    })
    .join('\n\n');
}

async function loadAll(input: PluginInput, { deps, run }: { deps: TranscribeAudioDeps; run: Run }): Promise<{ audio: LoadedAudio[]; notes: string[] }> {
  const args = transcribeToolParameters.safeParse(input.args ?? {});
  if (!args.success) throw new ApiError('invalid_value', `transcribe-audio: ${args.error.issues[0]?.message ?? 'invalid arguments'}`, 'file');
  const { refs, unreadable, foreign } = audioRefs(input, args.data.file);
  const notes = unreadable.length ? [`${unreadable.join(', ')}: not a URL, data URL or Space file id`] : [];
  if (foreign.length) notes.push(`${foreign.join(', ')}: a URL that is not one of the request's files is not fetched`);
  // All files are read and checked before the first upload, so a file refused for its size costs nothing.
  const audio: LoadedAudio[] = [];
  for (const ref of refs) {
    const loaded = await loadAudio(ref, { ctx: run.ctx, spaceFiles: deps.spaceFiles, maxBytes: run.config.maxBytes });
    if (loaded) audio.push(loaded);
  }
  if (audio.length === 0) notes.push('no audio file in the request');
  return { audio, notes };
}

async function transcribeFiles(input: PluginInput, { deps, run }: { deps: TranscribeAudioDeps; run: Run }): Promise<PluginOutput> {
  const { audio, notes } = await loadAll(input, { deps, run });
  const artifacts: TranscriptArtifact[] = [];
  let costUsd = 0;
  // One file at a time: each upload may be 25 MiB, and one backend's concurrency is shared by all workers.
  for (const file of audio) {
    const result = await transcribe(file, run);
    if (result.durationSeconds === undefined) notes.push(`${file.param}: the backend did not report the duration, so its cost is not counted`);
    else costUsd += transcriptionCostUsd(result.durationSeconds, run.config.costUsdPerMinute);
    if (!result.text) notes.push(`${file.param}: no speech recognised`);
    else
      artifacts.push({
        type: 'transcript',
        plugin: PLUGIN_ID,
        text: result.text,
        ...(result.language ? { language: result.language } : {}),
        ...(result.durationSeconds !== undefined ? { duration_seconds: result.durationSeconds } : {}),
        source: file.source,
      });
  }
  run.ctx.logger.info({ plugin: PLUGIN_ID, files: audio.length, transcripts: artifacts.length, costUsd }, 'audio transcribed');
  return {
    context: transcriptsContext(artifacts),
    searchResults: [],
    artifacts,
    costUsd,
    ...(notes.length ? { warning: `transcribe-audio: ${notes.join('; ')}` } : {}),
  };
}

/** transcribe-audio over any OpenAI audio-transcriptions-compatible backend (`POST {base}/audio/transcriptions`), or the test backend. */
export function createTranscribeAudioPlugin(config: TranscribeConfig, deps: TranscribeAudioDeps): Plugin {
  const availability = (): Availability =>
    config.backend === 'test' || config.apiKey
      ? { available: true }
      : { available: false, reason: 'no transcription backend key: set TRANSCRIBE_API_KEY (or OPENAI_API_KEY when TRANSCRIBE_BASE_URL is not set)' };
  return {
    id: PLUGIN_ID,
    phase: 'before_model',
    description: "Transcribe the request's audio files (speech to text) so their content can be used in the answer.",
    toolParameters: transcribeToolParameters,
    settingsSchema: transcribeAudioSettings,
    backendKey: config.backend === 'test' ? `${PLUGIN_ID}:test` : `${PLUGIN_ID}:${new URL(config.baseUrl).host}`,
    availability,
    run: async (input, ctx) => {
      if (config.backend !== 'test' && !config.apiKey)
        throw new UpstreamError({ kind: 'authentication', provider: SERVICE, message: 'no transcription backend key is configured' });
      return transcribeFiles(input, { deps, run: { config, settings: readSettings(ctx.settings), ctx } });
    },
  };
}
