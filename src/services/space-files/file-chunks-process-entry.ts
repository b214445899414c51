import { Worker } from 'node:worker_threads';
import { fileChunks } from './file-chunks';
import type { ChunkingInput, ChunkingReply } from './file-chunks-process';

/**
 * Entry point of the process started by `chunksInChildProcess` (file-chunks-process.ts): takes one
 * file over IPC, extracts and chunks it, sends back the chunks or the reason it failed, and ends.
 */
/** Past the parent's own deadline, in ms: the parent normally kills this process first. */
const WATCHDOG_MARGIN_MS = 5000;

/**
 * A thread that kills this process if the parent (a worker process) dies, or long past the deadline:
 * the parent's kill cannot come then, and a CPU-bound read blocks this process's own timers. It
 * polls the parent id once a second (an orphan is adopted by another process).
 */
const WATCHDOG = `
const { workerData } = require('node:worker_threads');
const until = Date.now() + workerData.ms;
setInterval(() => {
  if (process.ppid !== workerData.parent || Date.now() > until) process.kill(process.pid, 'SIGKILL');
}, 1000);
`;

function reply(message: ChunkingReply): void {
  process.send?.(message, () => process.disconnect());
}

process.once('message', (input: ChunkingInput) => {
  new Worker(WATCHDOG, { eval: true, workerData: { ms: input.timeoutMs + WATCHDOG_MARGIN_MS, parent: process.ppid } }).unref();
  const bytes = Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength);
  fileChunks(input.kind, bytes).then(
    (chunks) => reply({ chunks }),
    (err: unknown) => reply({ error: err instanceof Error ? err.message : String(err) }),
  );
});
