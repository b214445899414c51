import { Worker } from 'node:worker_threads';
import type { FileKind } from './file-types';

export interface ThreadInput {
  kind: FileKind | null;
  bytes: Uint8Array;
}

export type ThreadReply = { chunks: string[] } | { error: string };

export interface ChunkingLimits {
  /** Heap (V8 old generation) one file's thread may use, in MiB. */
  heapMb: number;
  /** Longest one file's thread may run, from its start to its reply, in ms. */
  timeoutMs: number;
}

/**
 * The thread's code is evaluated rather than loaded from a path so that one mechanism serves every
 * way the service runs: from `dist/` (node) it requires the compiled entry; from TypeScript sources
 * (tsx, ts-jest) it registers tsx's CommonJS loader first, unless the thread already inherited one
 * (tsx passes its loader to threads through execArgv).
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
if (workerData.typescriptLoader && !require.extensions['.ts']) require(workerData.typescriptLoader).register();
require(workerData.entry);
`;

const ENTRY = require.resolve('./file-chunks-thread-entry');
const TYPESCRIPT_LOADER = ENTRY.endsWith('.ts') ? require.resolve('tsx/cjs/api') : null;

const OUT_OF_MEMORY = 'ERR_WORKER_OUT_OF_MEMORY';

/**
 * Extracts and chunks one file in a thread of its own, bounded in memory (`heapMb`) and time
 * (`timeoutMs`): a hostile file (a ZIP bomb, a pathological text) costs that thread, never the
 * worker process or its event loop, which keeps renewing job locks and serving completions. The
 * thread is terminated whatever the outcome. Rejects with a reason a person can act on.
 */
export function chunksInThread(input: ThreadInput, limits: ChunkingLimits): Promise<string[]> {
  // A copy of exactly the file's bytes, handed over rather than cloned a second time.
  const bytes = new Uint8Array(input.bytes);
  const worker = new Worker(BOOTSTRAP, {
    eval: true,
    workerData: { kind: input.kind, bytes, entry: ENTRY, typescriptLoader: TYPESCRIPT_LOADER },
    transferList: [bytes.buffer],
    resourceLimits: { maxOldGenerationSizeMb: limits.heapMb },
  });
  const chunking = new Promise<string[]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`reading the file took longer than the ${limits.timeoutMs} ms allowed`)), limits.timeoutMs);
    timer.unref();
    const settle = () => clearTimeout(timer);
    worker.once('message', (reply: ThreadReply) => {
      settle();
      if ('chunks' in reply) resolve(reply.chunks);
      else reject(new Error(reply.error));
    });
    worker.once('error', (err: Error & { code?: string }) => {
      settle();
      reject(new Error(err.code === OUT_OF_MEMORY ? `reading the file needed more than the ${limits.heapMb} MiB of memory allowed` : `the file reader failed: ${err.message}`));
    });
    worker.once('exit', (code) => {
      settle();
      reject(new Error(`the file reader stopped (exit code ${code})`));
    });
  });
  return chunking.finally(() => worker.terminate());
}
