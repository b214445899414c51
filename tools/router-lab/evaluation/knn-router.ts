import { norm, type SparseVector } from '../../../src/routing/learned/linear-models';
import { DENSE_FEATURES, promptFeatures, shapeOf } from '../../../src/routing/learned/prompt-features';
import { trainCostEstimate } from './cost-estimate';
import type { RouterTrainer } from './eval-router';
import type { LabelledPrompt } from './labelled-prompt';
import { categoryOf, outcomeMeans } from './outcome-means';

/** Hashed feature slots, as RouterBench-style kNN routers on n-grams use. */
const BUCKETS = 1 << 16;
/** Neighbours whose outcomes are averaged. */
const K = 40;

/** Features are computed once per line object: cross-validation folds share the same training lines. */
const featureCache = new WeakMap<LabelledPrompt, SparseVector>();

function featuresOf(line: LabelledPrompt): SparseVector {
  let features = featureCache.get(line);
  if (!features) {
    features = promptFeatures(shapeOf(line.prompt), BUCKETS);
    featureCache.set(line, features);
  }
  return features;
}

/** The training vectors transposed (feature → lines), so a query only touches lines sharing a feature. */
interface InvertedIndex {
  offsets: Int32Array;
  lines: Int32Array;
  values: Float32Array;
  norms: Float64Array;
}

function invertedIndex(vectors: readonly SparseVector[]): InvertedIndex {
  const offsets = new Int32Array(BUCKETS + DENSE_FEATURES + 1);
  for (const v of vectors) for (const f of v.indices) offsets[f + 1]++;
  for (let f = 1; f < offsets.length; f++) offsets[f] += offsets[f - 1];
  const fill = offsets.slice(0, -1);
  const lines = new Int32Array(offsets[offsets.length - 1]);
  const values = new Float32Array(lines.length);
  vectors.forEach((v, line) => {
    for (let j = 0; j < v.indices.length; j++) {
      const at = fill[v.indices[j]]++;
      lines[at] = line;
      values[at] = v.values[j];
    }
  });
  return { offsets, lines, values, norms: Float64Array.from(vectors, (v) => norm(v) || 1) };
}

/** The `K` training lines most cosine-similar to the query; ties go to the earlier line. */
function nearest(index: InvertedIndex, query: SparseVector): number[] {
  const { offsets, lines, values } = index;
  const dots = new Float64Array(index.norms.length);
  for (let j = 0; j < query.indices.length; j++) {
    const q = query.values[j];
    const to = offsets[query.indices[j] + 1];
    for (let p = offsets[query.indices[j]]; p < to; p++) dots[lines[p]] += q * values[p];
  }
  const top: { line: number; similarity: number }[] = [];
  for (let line = 0; line < dots.length; line++) {
    const similarity = dots[line] / index.norms[line];
    if (top.length === K && similarity <= top[K - 1].similarity) continue;
    let at = top.length;
    while (at > 0 && top[at - 1].similarity < similarity) at--;
    top.splice(at, 0, { line, similarity });
    if (top.length > K) top.pop();
  }
  return top.map((t) => t.line);
}

/**
 * kNN: cosine similarity over `promptFeatures` (hashed n-grams and dense signals); a model's estimate is
 * its mean outcome over the `K` nearest training prompts that have one for it, else its overall
 * training mean. Costs come from the shared cost estimate.
 */
export const trainKnnRouter: RouterTrainer = (training) => {
  const prompts = training.prompts;
  const index = invertedIndex(prompts.map(featuresOf));
  const means = outcomeMeans(prompts);
  const costs = trainCostEstimate(training);
  return {
    estimate(line, models) {
      const neighbours = nearest(index, featuresOf(line)).map((i) => prompts[i]);
      return models.map((model) => {
        const seen = neighbours.map((n) => n.outcomes[model]).filter((o) => o !== undefined);
        const quality = seen.length > 0 ? seen.reduce((a, b) => a + b, 0) / seen.length : means.overall(model);
        return { quality, cost: costs.cost(line, model) };
      });
    },
    kindOf: categoryOf,
  };
};
