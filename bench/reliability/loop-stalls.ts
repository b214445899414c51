import { readFileSync } from 'node:fs';
import type { FaultContext } from './fault';

/** One line of the event-loop watchdog (docs/observability.md), as a process logged it. */
export interface StallLine {
  msg?: string;
  /** pino's `time`: an ISO date here (the service's logger), epoch ms by pino's default. */
  time?: string | number;
  lag_ms?: number;
  request_id?: string;
}

/** The watchdog's stall lines every process logged since `since` (epoch ms). */
export function stallsSince(ctx: FaultContext, since: number): StallLine[] {
  return [...ctx.stack.apis, ...ctx.stack.workers].flatMap((proc) => {
    let text = '';
    try {
      text = readFileSync(proc.logFile, 'utf8');
    } catch {
      return [];
    }
    return text.split('\n').flatMap((line) => {
      if (!line.includes('event loop stalled')) return [];
      try {
        const parsed = JSON.parse(line) as StallLine;
        const time = typeof parsed.time === 'number' ? parsed.time : Date.parse(parsed.time ?? '');
        return time >= since ? [parsed] : [];
      } catch {
        return [];
      }
    });
  });
}

