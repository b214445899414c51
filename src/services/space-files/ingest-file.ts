import type { Logger } from 'pino';
import type { EmbeddingsConfig } from '../../config/plugins/space-search';
import type { HttpClient } from '../../net/http-client';
import { embed, embeddingsCost } from '../../plugins/file-embeddings';
import { UpstreamError } from '../../errors/upstream-error';
import type { SpaceFileJob } from '../../queue/payloads';
import type { NewChunk, SpaceFileChunkRepository } from '../../store/space-file-chunks';
import type { SpaceFileRepository } from '../../store/space-files';
import { chunksInChildProcess, type ChunkingLimits } from './file-chunks-process';
import { kindOfMimeType } from './file-types';

export interface IngestDeps {
  files: SpaceFileRepository;
  chunks: SpaceFileChunkRepository;
  /** null: chunks get no vectors (full-text ranking only). */
  embeddings: EmbeddingsConfig | null;
  /** The backend client, for the embeddings base URL. */
  http: HttpClient;
  /** Bounds of the process that extracts and chunks each file. */
  chunking: ChunkingLimits;
  logger: Logger;
}

export type IngestOutcome = { status: 'ready'; chunks: number; embedded: boolean } | { status: 'gone' };

/** A file that cannot be ingested however often it is tried (not text, a broken PDF): no retry. */
export class IngestFailure extends Error {
  override name = 'IngestFailure';
}

/** Chunks embedded per call, well under OpenAI's 2,048 inputs and 300k tokens per request. */
const EMBEDDING_BATCH = 64;
/** Longest one embeddings call may take, in ms. */
const EMBEDDING_TIMEOUT_MS = 60_000;

async function embedAll(deps: IngestDeps, config: EmbeddingsConfig, texts: string[]): Promise<number[][]> {
  const vectors: number[][] = [];
  let tokens = 0;
  for (let start = 0; start < texts.length; start += EMBEDDING_BATCH) {
    const batch = await embed(deps.http, config, {
      inputs: texts.slice(start, start + EMBEDDING_BATCH),
      signal: new AbortController().signal,
      timeoutMs: EMBEDDING_TIMEOUT_MS,
    });
    vectors.push(...batch.vectors);
    tokens += batch.promptTokens;
  }
  deps.logger.info({ chunks: texts.length, tokens, cost_usd: embeddingsCost(config, tokens) }, 'space file chunks embedded');
  return vectors;
}

/**
 * Vectors for the chunks, or none with a note: a file stays searchable by full text when embeddings
 * fail. A retryable failure before the last attempt is thrown instead, so the queue tries again.
 */
async function withEmbeddings(deps: IngestDeps, texts: string[], lastAttempt: boolean): Promise<{ chunks: NewChunk[]; note: string | null }> {
  const plain = { chunks: texts.map((text) => ({ text, embedding: null })), note: null };
  if (!deps.embeddings || texts.length === 0) return plain;
  try {
    const vectors = await embedAll(deps, deps.embeddings, texts);
    return { chunks: texts.map((text, i) => ({ text, embedding: vectors[i] ?? null })), note: null };
  } catch (err) {
    if (err instanceof UpstreamError && err.retryable && !lastAttempt) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    deps.logger.warn({ err }, 'space file not embedded; searchable by full text only');
    return { ...plain, note: `Embeddings unavailable (${reason}); searchable by full text only.` };
  }
}

/** Extraction and chunking, the CPU-bound part, run in a bounded child process; this event loop only waits. */
async function chunksOf(deps: IngestDeps, stored: { mimeType: string; bytes: Buffer }): Promise<string[]> {
  try {
    return await chunksInChildProcess({ kind: kindOfMimeType(stored.mimeType), bytes: stored.bytes }, deps.chunking);
  } catch (err) {
    throw new IngestFailure(`Text extraction failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Reads a file's bytes, extracts and chunks its text, embeds the chunks when a backend is configured,
 * and writes them (with their tsvector) and the `ready` status in one transaction. The job carries ids
 * only; a file deleted meanwhile is skipped.
 */
export async function ingestSpaceFile(deps: IngestDeps, job: SpaceFileJob, { lastAttempt }: { lastAttempt: boolean }): Promise<IngestOutcome> {
  if (!(await deps.files.markProcessing(job.fileId))) return { status: 'gone' };
  const stored = await deps.files.readBytes(job.appId, job.fileId);
  if (!stored) return { status: 'gone' };
  const texts = await chunksOf(deps, stored);
  const { chunks, note } = await withEmbeddings(deps, texts, lastAttempt);
  const emptyNote = texts.length === 0 ? 'No text was found in the file (a scanned document would need OCR).' : null;
  const written = await deps.chunks.replace(job.fileId, { appId: job.appId, chunks, note: note ?? emptyNote });
  if (!written) return { status: 'gone' };
  return { status: 'ready', chunks: chunks.length, embedded: chunks.some((chunk) => chunk.embedding !== null) };
}
