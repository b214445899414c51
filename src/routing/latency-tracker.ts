/** Latency assumed for a model never measured yet, in ms. */
export const DEFAULT_LATENCY_MS = 1500;
/** Weight of the newest measurement in the running average. */
const ALPHA = 0.2;

/** Running (exponentially weighted) average of each model's measured latency in this worker. */
export class LatencyTracker {
  private readonly averages = new Map<string, number>();

  record(modelId: string, latencyMs: number): void {
    const previous = this.averages.get(modelId);
    this.averages.set(modelId, previous === undefined ? latencyMs : previous + ALPHA * (latencyMs - previous));
  }

  expected(modelId: string): number {
    return this.averages.get(modelId) ?? DEFAULT_LATENCY_MS;
  }
}
