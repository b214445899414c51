import type { Behaviour } from '../../../test/simulator/behaviour';
import { startSimulator, type Simulator } from '../../../test/simulator/server';
import { TAG_PATTERN } from './completions';
import { seededRandom } from '../../router-lab/datasets/seeded-random';

/** What reached the simulator for one request (by its tag). */
export interface TagCalls {
  calls: number;
  /** Calls whose whole answer was handed over (not cut by a fault or a killed caller). */
  completed: number;
  /** Upstream model names called, in order. */
  models: string[];
  /** Epoch ms of each call's arrival. */
  receivedAt: number[];
}

/** The provider simulator in this process, recording every call so calls can be counted per request. */
export class Upstream {
  private constructor(readonly sim: Simulator) {}

  static async start(): Promise<Upstream> {
    // Tags lead each message, so 4 KiB of each string is all the counting needs.
    return new Upstream(await startSimulator({ record: true, recordedStringChars: 4096 }));
  }

  get openAiBaseUrl(): string {
    return this.sim.baseUrls.openai;
  }

  /** Calls of each tagged request seen since the last `reset`. */
  callsByTag(): Map<string, TagCalls> {
    const byTag = new Map<string, TagCalls>();
    for (const call of this.sim.requests) {
      const tag = TAG_PATTERN.exec(JSON.stringify(call.body ?? null))?.[1];
      if (!tag) continue;
      const entry = byTag.get(tag) ?? { calls: 0, completed: 0, models: [], receivedAt: [] };
      entry.calls += 1;
      if (call.completed) entry.completed += 1;
      entry.models.push(String((call.body as { model?: unknown } | undefined)?.model));
      entry.receivedAt.push(call.receivedAt);
      byTag.set(tag, entry);
    }
    return byTag;
  }

  /** Upstream calls made for these tags. */
  callsFor(tags: Iterable<string>): number {
    const byTag = this.callsByTag();
    let total = 0;
    for (const tag of tags) total += byTag.get(tag)?.calls ?? 0;
    return total;
  }

  /**
   * The model's next `count` calls: each shows `fault` with probability `share` (a seeded draw, so runs
   * compare), else answers normally. Past `count` calls the model answers normally.
   */
  scriptFaults(model: string, options: { fault: Behaviour; share: number; count: number; seed: number }): void {
    const random = seededRandom(options.seed);
    const behaviours: Behaviour[] = Array.from({ length: options.count }, () => (random() < options.share ? options.fault : { kind: 'ok' }));
    this.sim.script(model, behaviours);
  }

  /** Each request whose tag starts with `prefix` shows `fault` on its first call, whichever model that reaches; its later calls answer normally. */
  failFirstCallOfEach(prefix: string, fault: Behaviour): void {
    const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    this.sim.failFirstCalls({ pattern: new RegExp(`\\[rel:(${escaped}[^\\]\\s]*)\\]`), behaviour: fault });
  }

  script(model: string, behaviours: Behaviour[]): void {
    this.sim.script(model, behaviours);
  }

  reset(): void {
    this.sim.reset();
  }

  close(): Promise<void> {
    return this.sim.close();
  }
}
