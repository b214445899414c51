import { parentPort, workerData } from 'node:worker_threads';
import { fileChunks } from './file-chunks';
import type { ThreadInput, ThreadReply } from './file-chunks-thread';

/**
 * Entry point of the thread started by `chunksInThread` (file-chunks-thread.ts): extracts and chunks
 * one file, posts the chunks or the reason it failed, and ends.
 */
const input = workerData as ThreadInput;
const reply = (message: ThreadReply) => parentPort?.postMessage(message);

fileChunks(input.kind, Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength)).then(
  (chunks) => reply({ chunks }),
  (err: unknown) => reply({ error: err instanceof Error ? err.message : String(err) }),
);
