import { readFileSync } from 'node:fs';
import type { FaultContext } from './fault';

/** One JSON line of a service process's log. */
export interface LogLine {
  level?: number;
  msg?: string;
  /** pino's `time`: an ISO date here (the service's logger), epoch ms by pino's default. */
  time?: string | number;
  request_id?: string;
  lag_ms?: number;
  err?: { message?: string; type?: string };
}

/** Every parsed line that `keep` accepts, from every running API and worker process's log. */
export function processLogLines(ctx: FaultContext, keep: (raw: string) => boolean): LogLine[] {
  return [...ctx.stack.apis, ...ctx.stack.workers].flatMap((proc) => {
    let text: string;
    try {
      text = readFileSync(proc.logFile, 'utf8');
    } catch {
      return [];
    }
    return text.split('\n').flatMap((line) => {
      if (!keep(line)) return [];
      try {
        return [JSON.parse(line) as LogLine];
      } catch {
        return [];
      }
    });
  });
}

/** The event-loop watchdog's stall lines (docs/observability.md) every process logged since `since` (epoch ms). */
export function stallsSince(ctx: FaultContext, since: number): LogLine[] {
  return processLogLines(ctx, (raw) => raw.includes('event loop stalled')).filter((line) => {
    const time = typeof line.time === 'number' ? line.time : Date.parse(line.time ?? '');
    return time >= since;
  });
}

/** What the processes logged as errors for one request: the cause of its 5xx, for the notes. */
export function errorsOf(ctx: FaultContext, requestId: string): string[] {
  return processLogLines(ctx, (raw) => raw.includes(requestId))
    .filter((line) => (line.level ?? 0) >= 50 && line.err?.message)
    .map((line) => `${line.msg ?? ''}: ${line.err?.message?.slice(0, 200) ?? ''}`);
}
