import type { IncomingMessage, ServerResponse } from 'node:http';
import { sleep } from '../http';

/**
 * What a simulated plugin backend does with its next request. Every backend simulator takes the same
 * vocabulary, so one scenario table (test/plugins/scenarios.ts) runs against every plugin.
 * - `ok`: a normal answer; `empty`: a well-formed answer with nothing in it (no results, no images);
 * - `timeout`: headers never come (the client's timeout must end the call);
 * - `status`: that HTTP status with the backend's own error body;
 * - `malformed`: 200 with a body that is not the backend's format;
 * - `delay`: a normal answer after `ms`.
 */
export type BackendFault =
  { kind: 'ok' } | { kind: 'empty' } | { kind: 'timeout' } | { kind: 'status'; status: number } | { kind: 'malformed' } | { kind: 'delay'; ms: number };

/** Faults for the next requests, in order; then `ok` (or the simulator's default delay). */
export class FaultScript {
  private readonly queue: BackendFault[] = [];
  /** Applied to every `ok` answer, in ms (benchmarks: a backend answering in 200 ms). */
  defaultDelayMs = 0;

  push(...faults: BackendFault[]): void {
    this.queue.push(...faults);
  }

  next(): BackendFault {
    return this.queue.shift() ?? (this.defaultDelayMs > 0 ? { kind: 'delay', ms: this.defaultDelayMs } : { kind: 'ok' });
  }

  reset(): void {
    this.queue.length = 0;
  }
}

/**
 * Applies the transport faults (`timeout`, `status`, `malformed`, `delay`) and reports whether the
 * caller should still write its own answer (`ok`, `empty`, or after a delay); `errorBody` is the
 * backend's own error shape for a status.
 */
export async function applyFault(
  fault: BackendFault,
  res: ServerResponse,
  { errorBody, req }: { errorBody: (status: number) => unknown; req: IncomingMessage },
): Promise<'ok' | 'empty' | 'handled'> {
  switch (fault.kind) {
    case 'timeout':
      // Keep the socket open without answering until the client gives up.
      await new Promise<void>((resolve) => req.socket.once('close', () => resolve()));
      return 'handled';
    case 'status':
      res.writeHead(fault.status, { 'content-type': 'application/json' }).end(JSON.stringify(errorBody(fault.status)));
      return 'handled';
    case 'malformed':
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"unexpected": [1, 2');
      return 'handled';
    case 'delay':
      await sleep(fault.ms);
      return 'ok';
    default:
      return fault.kind;
  }
}
