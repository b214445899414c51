import { fileChunks } from './file-chunks';
import type { ChunkingInput, ChunkingReply } from './file-chunks-process';

/**
 * Entry point of the process started by `chunksInChildProcess` (file-chunks-process.ts): takes one
 * file over IPC, extracts and chunks it, sends back the chunks or the reason it failed, and ends.
 */
function reply(message: ChunkingReply): void {
  process.send?.(message, () => process.disconnect());
}

process.once('message', (input: ChunkingInput) => {
  const bytes = Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength);
  fileChunks(input.kind, bytes).then(
    (chunks) => reply({ chunks }),
    (err: unknown) => reply({ error: err instanceof Error ? err.message : String(err) }),
  );
});
