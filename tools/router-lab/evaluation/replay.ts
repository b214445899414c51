import { seededShuffle } from '../datasets/seeded-random';
import { chooseWithExploration, type ExplorationOptions } from '../../../src/routing/online/exploration';
import { SpaceFeedback } from '../../../src/routing/online/space-feedback';
import { byDecision, weightedScores } from '../../../src/routing/scorer';
import type { EvalRouter, RouterEstimate } from './eval-router';
import type { LabelledPrompt, PriceTable } from './labelled-prompt';
import { askRouter } from './sweep';
import { buildTestTable, type CostQuality, type TestTable } from './test-table';

/** An outcome at or above this counts as a good rating (outcomes are 0 to 1; binary sets give 0 or 1). */
export const GOOD_OUTCOME = 0.5;
/** The stream is cut into this many equal parts to show how the online router drifts. */
const STREAM_PARTS = 5;

export interface ReplayOptions {
  /** The offline router, already trained. */
  router: EvalRouter;
  test: readonly LabelledPrompt[];
  /** The candidates; each must have an outcome on every test line (see `evaluationPool`). */
  pool: readonly string[];
  prices: PriceTable | null;
  /** Orders the stream of test prompts. */
  seed: number;
  /** Cost weights to replay at (quality gets 1 − w); default [0, 0.5]. */
  costWeights?: readonly number[];
  exploration?: ExplorationOptions;
}

export interface StreamPart {
  /** Positions in the stream, `from` inclusive, `to` exclusive. */
  from: number;
  to: number;
  offline_quality: number;
  online_quality: number;
}

export interface ReplayPoint {
  cost_weight: number;
  /** The offline router alone: mean outcome, and mean USD per prompt. */
  offline: CostQuality;
  /** The offline router corrected by the ratings seen so far, exploring as the service does. */
  online: CostQuality;
  /** Share of prompts (0 to 1) answered by an explored model. */
  explored_share: number;
  /** Offline and online quality over each fifth of the stream, first to last. */
  stream: StreamPart[];
}

export interface ReplayReport {
  seed: number;
  prompts: number;
  /** What one rating reveals: the chosen model's outcome, good when at least this. */
  good_outcome: number;
  points: ReplayPoint[];
}

interface Ranked {
  index: number;
  modelId: string;
  name: string;
  score: number;
  cost: number;
  ratings: number;
}

interface RankingContext {
  pool: readonly string[];
  costWeight: number;
  feedback: SpaceFeedback;
}

/** The candidates best first, by the service's rule (`weightedScores`, latency weighted 0, `byDecision`). */
function ranking(estimates: readonly RouterEstimate[], { pool, costWeight, feedback }: RankingContext): Ranked[] {
  const scores = weightedScores(
    estimates.map((e) => ({ ...e, latency: 0 })),
    { quality: 1 - costWeight, cost: costWeight, latency: 0 },
  );
  const ranked = pool.map((modelId, index) => ({
    index,
    modelId,
    name: modelId,
    score: scores[index],
    cost: estimates[index].cost,
    ratings: feedback.ratings(modelId),
  }));
  return ranked.sort(byDecision);
}

interface StreamInputs {
  table: TestTable;
  /** Line indices in stream order. */
  order: readonly number[];
  estimates: readonly RouterEstimate[][];
  kinds: readonly string[];
  exploration: ExplorationOptions;
}

/** Mean of `values[from..to)`; 0 for an empty range. */
function meanOver(values: readonly number[], from: number, to: number): number {
  let sum = 0;
  for (let t = from; t < to; t++) sum += values[t];
  return to > from ? sum / (to - from) : 0;
}

function streamParts(offline: readonly number[], online: readonly number[]): StreamPart[] {
  const n = offline.length;
  return Array.from({ length: STREAM_PARTS }, (_, k) => {
    const [from, to] = [Math.floor((k * n) / STREAM_PARTS), Math.floor(((k + 1) * n) / STREAM_PARTS)];
    return { from, to, offline_quality: meanOver(offline, from, to), online_quality: meanOver(online, from, to) };
  });
}

/** One pass over the stream at one cost weight, starting from a Space with no ratings. */
function replayAt(inputs: StreamInputs, costWeight: number): ReplayPoint {
  const { table, order, estimates, kinds } = inputs;
  const feedback = new SpaceFeedback([]);
  const offlineQuality: number[] = [];
  const onlineQuality: number[] = [];
  let [offlineCost, onlineCost, explored] = [0, 0, 0];
  const context = { pool: table.pool, costWeight, feedback };
  for (const i of order) {
    const offlinePick = ranking(estimates[i], context)[0].index;
    offlineQuality.push(table.outcomes[i][offlinePick]);
    offlineCost += table.costs[i][offlinePick];

    const online = estimates[i].map((e, m) => ({ ...e, quality: feedback.quality(table.pool[m], kinds[i], e.quality) }));
    const { chosen, explored: wasExplored } = chooseWithExploration(table.lines[i].id, ranking(online, context), inputs.exploration);
    const pick = chosen?.index ?? offlinePick;
    const outcome = table.outcomes[i][pick];
    onlineQuality.push(outcome);
    onlineCost += table.costs[i][pick];
    if (wasExplored) explored += 1;
    // Only the answer given is rated; `expected` is what the offline model predicted for it.
    feedback.record(table.pool[pick], kinds[i], { ratings: 1, good: outcome >= GOOD_OUTCOME ? 1 : 0, expected: estimates[i][pick].quality });
  }
  const n = order.length || 1;
  return {
    cost_weight: costWeight,
    offline: { quality: meanOver(offlineQuality, 0, offlineQuality.length), cost: offlineCost / n },
    online: { quality: meanOver(onlineQuality, 0, onlineQuality.length), cost: onlineCost / n },
    explored_share: explored / n,
    stream: streamParts(offlineQuality, onlineQuality),
  };
}

/**
 * Replays the test prompts as one Space's stream of traffic, in a seeded order, as the service would
 * see it with `smart_learn` on: each prompt is routed with the offline estimates corrected by the
 * ratings so far (`adjustedQuality`, per model and kind), exploring as the service does (request id =
 * line id), and only the chosen model's outcome is revealed as a rating (good when the outcome is at
 * least GOOD_OUTCOME, which for continuous outcomes reads them as a probability of a good answer).
 * The offline router alone is scored on the same stream for comparison.
 */
export function replayEvaluation(options: ReplayOptions): ReplayReport {
  const table = buildTestTable(options.test, options.pool, options.prices);
  const order = seededShuffle(
    table.lines.map((_, i) => i),
    options.seed,
  );
  const estimates = askRouter(options.router, table);
  const kinds = table.lines.map((line) => options.router.kindOf(line));
  const inputs: StreamInputs = { table, order, estimates, kinds, exploration: options.exploration ?? {} };
  return {
    seed: options.seed,
    prompts: table.lines.length,
    good_outcome: GOOD_OUTCOME,
    points: (options.costWeights ?? [0, 0.5]).map((w) => replayAt(inputs, w)),
  };
}
