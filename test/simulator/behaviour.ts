/** What the simulator does with one request. */
export type Behaviour =
  /** `delayMs` before the answer starts; `chunkDelayMs` between streamed content chunks. */
  | { kind: 'ok'; delayMs?: number; chunkDelayMs?: number }
  | { kind: 'status'; status: number; retryAfterSeconds?: number }
  | { kind: 'hang' }
  | { kind: 'reset' }
  /** Streams this many content chunks, then drops the connection (non-streaming: drops mid-body). */
  | { kind: 'cut'; afterChunks: number };

/**
 * Faults chosen by the model name, so any client can ask for one: `sim-429`, `sim-503`, `sim-hang`,
 * `sim-reset`, `sim-cut-2`, `sim-slow-250` (answers after 250 ms), `sim-drip-100` (streams with 100 ms
 * between content chunks). Any other name answers normally.
 */
export function behaviourFromModel(model: string): Behaviour {
  const match = /^sim-(\d{3}|hang|reset|cut-(\d+)|slow-(\d+)|drip-(\d+))$/.exec(model);
  if (!match) return { kind: 'ok' };
  const [, what, cut, slow, drip] = match;
  if (what === 'hang') return { kind: 'hang' };
  if (what === 'reset') return { kind: 'reset' };
  if (cut !== undefined) return { kind: 'cut', afterChunks: Number(cut) };
  if (slow !== undefined) return { kind: 'ok', delayMs: Number(slow) };
  if (drip !== undefined) return { kind: 'ok', chunkDelayMs: Number(drip) };
  const status = Number(what);
  return status === 429 ? { kind: 'status', status, retryAfterSeconds: 1 } : { kind: 'status', status };
}

/**
 * A fault on the first call of each request, whichever model it names: a request is told by the first
 * capture group of `pattern` matched against its JSON body (a tag in its text), so a retry or a
 * failover of the same request answers normally.
 */
export interface FirstCallFault {
  pattern: RegExp;
  behaviour: Behaviour;
}

/** Scripted behaviours: first-call faults, then per model name in order, before falling back to the name's own. */
export class BehaviourScript {
  private readonly queues = new Map<string, Behaviour[]>();
  private readonly firstCalls: FirstCallFault[] = [];
  /** Request keys (per first-call fault) already seen once. */
  private readonly seen = new Set<string>();

  push(model: string, behaviours: Behaviour[]): void {
    this.queues.set(model, [...(this.queues.get(model) ?? []), ...behaviours]);
  }

  failFirstCalls(fault: FirstCallFault): void {
    this.firstCalls.push(fault);
  }

  /** `body` is read only while a first-call fault is set (benchmarks pay nothing for it). */
  next(model: string, body?: unknown): Behaviour {
    return this.firstCallFault(body) ?? this.queues.get(model)?.shift() ?? behaviourFromModel(model);
  }

  clear(): void {
    this.queues.clear();
    this.firstCalls.length = 0;
    this.seen.clear();
  }

  private firstCallFault(body: unknown): Behaviour | undefined {
    if (this.firstCalls.length === 0) return undefined;
    const text = JSON.stringify(body ?? null);
    for (const [index, fault] of this.firstCalls.entries()) {
      const key = fault.pattern.exec(text)?.[1];
      if (key === undefined) continue;
      const seenKey = `${index} ${key}`;
      if (this.seen.has(seenKey)) continue;
      this.seen.add(seenKey);
      return fault.behaviour;
    }
    return undefined;
  }
}
