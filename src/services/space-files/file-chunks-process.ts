import { fork } from 'node:child_process';
import type { FileKind } from './file-types';

export interface ChunkingInput {
  kind: FileKind | null;
  bytes: Uint8Array;
  /** The deadline, in ms, for the child's own watchdog should this process die. */
  timeoutMs: number;
}

export type ChunkingReply = { chunks: string[] } | { error: string };

export interface ChunkingLimits {
  /** V8 heap (old generation) of the process that reads one file, in MiB. */
  heapMb: number;
  /** Longest that process may run, from its start to its reply, in ms. */
  timeoutMs: number;
}

const ENTRY = require.resolve('./file-chunks-process-entry');
/**
 * From `dist/` the entry is JavaScript; from TypeScript sources (tsx, ts-jest) the child loads it
 * through tsx's CommonJS hook.
 */
const LOADER_ARGS = ENTRY.endsWith('.ts') ? ['--require', require.resolve('tsx/cjs')] : [];
/**
 * What V8 prints when reading a file ran out of room. It may reach the heap limit ("FATAL ERROR: Reached
 * heap limit Allocation failed - JavaScript heap out of memory"), fail to reserve memory ("Fatal process
 * out of memory: ..."), or build a string or array past its largest size ("Fatal JavaScript invalid
 * size error"). Which one comes first depends on the garbage collector's timing.
 */
const OUT_OF_MEMORY = /out of memory|Allocation failed|invalid size error/i;

/** Characters of the child's stderr kept, for the log (V8's out-of-memory report ends there). */
const STDERR_TAIL_CHARS = 4096;

/**
 * The reader's stderr as it arrives: its end kept for the log, and whether V8 reported running out of
 * room (`OUT_OF_MEMORY`). The report is looked for as it arrives: a long native stack after it could push
 * it out of the tail kept.
 */
export class ReaderStderr {
  tail = '';
  outOfMemory = false;

  add(text: string): void {
    const joined = this.tail + text;
    if (!this.outOfMemory && OUT_OF_MEMORY.test(joined)) this.outOfMemory = true;
    this.tail = joined.slice(-STDERR_TAIL_CHARS);
  }
}

export class ChunkingFailure extends Error {
  override name = 'ChunkingFailure';
  constructor(
    message: string,
    /** The end of the child's stderr, for the log; never shown to the client. */
    readonly stderrTail = '',
  ) {
    super(message);
  }
}

/**
 * Extracts and chunks one file in a child process of its own, with `--max-old-space-size` and a
 * deadline: a hostile file (a ZIP bomb, a pathological text) costs that process, never the worker
 * process or its event loop, which keeps renewing job locks and serving completions. A process,
 * not a worker thread: a thread's `resourceLimits` are best effort, and some allocations past them
 * (one large string or array) abort the whole process (nodejs/node#47224); `--max-old-space-size`
 * in the parent would also override them (nodejs/node#43991). The child is killed whatever the
 * outcome, and kills itself should this process die first. Rejects with a `ChunkingFailure` whose
 * message a person can act on.
 */
export function chunksInChildProcess(input: Omit<ChunkingInput, 'timeoutMs'>, limits: ChunkingLimits): Promise<string[]> {
  const child = fork(ENTRY, [], {
    // Not the parent's flags (an inspector port, its own heap size): only ours.
    execArgv: [...LOADER_ARGS, `--max-old-space-size=${limits.heapMb}`],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const stderr = new ReaderStderr();
  child.stderr?.setEncoding('utf8').on('data', (text: string) => stderr.add(text));
  const chunking = new Promise<string[]>((resolve, reject) => {
    const fail = (message: string) => reject(new ChunkingFailure(message, stderr.tail));
    const timer = setTimeout(() => fail(`reading the file took longer than the ${limits.timeoutMs} ms allowed`), limits.timeoutMs);
    child.once('message', (reply: ChunkingReply) => ('chunks' in reply ? resolve(reply.chunks) : fail(reply.error)));
    child.once('error', (err) => fail(`the file reader could not run: ${err.message}`));
    // 'close', not 'exit': stderr is complete by then, and it says whether the heap ran out.
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (stderr.outOfMemory) fail(`reading the file needed more than the ${limits.heapMb} MiB of memory allowed`);
      else fail(`the file reader stopped (${signal ?? `exit code ${code}`})`);
    });
  });
  child.send({ kind: input.kind, bytes: input.bytes, timeoutMs: limits.timeoutMs } satisfies ChunkingInput);
  return chunking.finally(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
}
