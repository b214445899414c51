import type { LabelledPrompt } from '../evaluation/labelled-prompt';
import { seededShuffle } from '../datasets/seeded-random';
import { dot, kindPosterior, logit, viewPrompt, type OutcomeModel } from '../../../src/routing/learned/linear-models';
import { DENSE_FEATURES, promptFeatures, shapeOf } from '../../../src/routing/learned/prompt-features';
import type { RouterModel } from '../../../src/routing/learned/router-model';
import { trainKindClassifier } from './train-kind-classifier';
import { trainLengthModel } from './train-length-model';
import { trainOutcomeModel } from './train-outcome-model';

export interface RouterTrainingOptions {
  version: string;
  seed: number;
  /** Hashed feature slots. */
  buckets: number;
  /**
   * Learn per-model n-gram residuals. They only help models that will be routed by name as trained
   * (`router:eval`); the shipped weights leave them out, since catalog models are routed by profile.
   */
  residuals: boolean;
  /** Kind of a line for the classifier and the profiles; default its `category`, else "general". */
  kindOf?: (line: LabelledPrompt) => string;
}

/** Training hyper-parameters, chosen by cross-validation on the training folds (see the routing docs). */
const HYPER = { kindEpochs: 2, outcomeEpochs: 4, lengthEpochs: 2, rate: 0.1, l2: { residual: 1e-2, ease: 1e-5, theta: 1e-4 }, kindL2: 1e-6, lengthL2: 1e-5 };
/** Pseudo-counts pulling a model's per-kind start towards its overall mean outcome. */
const PRIOR_COUNTS = 10;

const orderFor = (size: number, seed: number) => (epoch: number) => seededShuffle([...Array(size).keys()], seed * 1009 + epoch);

/** Smoothed mean outcome of each model in each kind, as logits: where θ starts. */
function startingProfiles(
  lines: LabelledPrompt[],
  { kinds, models, kindOf }: { kinds: string[]; models: string[]; kindOf: (line: LabelledPrompt) => string },
): Float64Array {
  const K = kinds.length;
  const sums = new Float64Array(models.length * (K + 1));
  const counts = new Float64Array(models.length * (K + 1));
  const modelIndex = new Map(models.map((m, i) => [m, i]));
  for (const line of lines) {
    const k = kinds.indexOf(kindOf(line));
    for (const [name, y] of Object.entries(line.outcomes)) {
      const m = modelIndex.get(name) as number;
      sums[m * (K + 1) + K] += y;
      counts[m * (K + 1) + K]++;
      sums[m * (K + 1) + k] += y;
      counts[m * (K + 1) + k]++;
    }
  }
  const theta = new Float64Array(models.length * K);
  for (let m = 0; m < models.length; m++) {
    const overall = sums[m * (K + 1) + K] / Math.max(counts[m * (K + 1) + K], 1);
    for (let k = 0; k < K; k++) theta[m * K + k] = logit((sums[m * (K + 1) + k] + PRIOR_COUNTS * overall) / (counts[m * (K + 1) + k] + PRIOR_COUNTS));
  }
  return theta;
}

/** Trains every part of the router from labelled lines; deterministic for the same lines and seed. */
export function trainRouterModel(lines: LabelledPrompt[], options: RouterTrainingOptions): RouterModel {
  const kindOf = options.kindOf ?? ((line: LabelledPrompt) => line.category ?? 'general');
  const dimension = options.buckets + DENSE_FEATURES;
  const features = lines.map((line) => promptFeatures(shapeOf(line.prompt), options.buckets));
  const order = orderFor(lines.length, options.seed);
  const classifier = trainKindClassifier(
    lines.map((line, i) => ({ features: features[i], kind: kindOf(line) })),
    { dimension, epochs: HYPER.kindEpochs, order, l2: HYPER.kindL2 },
  );
  const models = [...new Set(lines.flatMap((line) => Object.keys(line.outcomes)))].sort();
  const modelIndex = new Map(models.map((m, i) => [m, i]));
  const outcome: OutcomeModel = {
    models,
    kinds: classifier.kinds,
    dimension,
    theta: startingProfiles(lines, { kinds: classifier.kinds, models, kindOf }),
    slope: new Float64Array(models.length).fill(1),
    ease: new Float64Array(dimension),
    residual: new Float64Array(options.residuals ? models.length * dimension : 0),
  };
  const examples = lines.map((line, i) => ({
    view: viewPrompt(outcome, features[i], kindPosterior(classifier, features[i])),
    outcomes: Object.entries(line.outcomes).map(([name, y]): [number, number] => [modelIndex.get(name) as number, y]),
  }));
  trainOutcomeModel(outcome, examples, { epochs: HYPER.outcomeEpochs, order, l2: HYPER.l2, rate: HYPER.rate });
  const lengthExamples = lines.flatMap((line, i) => {
    const tokens = Object.entries(line.completion_tokens ?? {}).flatMap(([name, n]): Array<[number, number]> =>
      modelIndex.has(name) ? [[modelIndex.get(name) as number, n]] : [],
    );
    return tokens.length > 0 ? [{ features: features[i], tokens }] : [];
  });
  const length = trainLengthModel(models, lengthExamples, {
    dimension,
    epochs: HYPER.lengthEpochs,
    order: orderFor(lengthExamples.length, options.seed),
    l2: HYPER.lengthL2,
  });
  const eases = features.map((vector) => dot(vector, outcome.ease));
  return {
    version: options.version,
    buckets: options.buckets,
    classifier,
    outcome,
    easeByKind: easeByKind(outcome, eases, lines.map(kindOf)),
    length,
    profileSlope: mean(outcome.slope),
  };
}

function easeByKind(outcome: OutcomeModel, eases: number[], kinds: string[]): Float64Array {
  const sums = new Float64Array(outcome.kinds.length);
  const counts = new Float64Array(outcome.kinds.length);
  eases.forEach((ease, i) => {
    const k = outcome.kinds.indexOf(kinds[i]);
    sums[k] += ease;
    counts[k]++;
  });
  return sums.map((sum, k) => (counts[k] > 0 ? sum / counts[k] : 0));
}

function mean(values: Float64Array): number {
  return values.length === 0 ? 1 : values.reduce((sum, value) => sum + value, 0) / values.length;
}
