import type { LabelledPrompt } from '../labelled-prompt';
import { categoryOf } from '../outcome-means';
import { fitLogistic } from './logistic-fit';

/** The penalty of the bound's regressions: light, as 7,000 training lines dwarf 40 features. */
const RIDGE = 1;

/** What the informed bound scores on a test file. */
export interface InformedBound {
  /** Models outside the pool whose outcomes the bound reads. */
  informants: string[];
  /** Test lines scored: those with an outcome for every pool model. */
  lines: number;
  /** Mean outcome of the bound's picks. */
  quality: number;
  /** Mean outcome of the pool model best on these test lines. */
  bestSingleQuality: number;
}

/** How a line is described to the bound's regressions: intercept, category, the informants' outcomes. */
function describer(train: readonly LabelledPrompt[], informants: readonly string[]): (line: LabelledPrompt) => number[] {
  const categories = [...new Set(train.map(categoryOf))].sort();
  const usual = informants.map((model) => {
    const seen = train.map((line) => line.outcomes[model]).filter((v): v is number => v !== undefined);
    return seen.length > 0 ? seen.reduce((a, b) => a + b, 0) / seen.length : 0.5;
  });
  return (line) => [
    1,
    ...categories.map((category) => (categoryOf(line) === category ? 1 : 0)),
    ...informants.map((model, i) => line.outcomes[model] ?? usual[i]),
  ];
}

/**
 * A ceiling for prompt-reading routers at quality-only weights, on sets whose lines carry the outcomes
 * of models outside the pool (MMLU-Pro: 29 models, a pool of 5). For each pool model a logistic
 * regression predicts its outcome from the line's category and from every OTHER model's outcome on the
 * very same prompt — far more than its text can reveal about how hard the prompt is — and the bound picks
 * the model with the highest prediction. A router that only reads the prompt is not expected to do better.
 */
export function informedBound(train: readonly LabelledPrompt[], test: readonly LabelledPrompt[], pool: readonly string[]): InformedBound {
  const inPool = new Set(pool);
  const informants = [...new Set(train.flatMap((line) => Object.keys(line.outcomes)))].filter((model) => !inPool.has(model)).sort();
  if (informants.length === 0) throw new Error('The training lines carry no outcomes of models outside the pool, so there is nothing to inform the bound.');
  const describe = describer(train, informants);
  const fits = pool.map((model) => {
    const labelled = train.filter((line) => line.outcomes[model] !== undefined);
    return fitLogistic(
      labelled.map(describe),
      labelled.map((line) => line.outcomes[model] ?? 0),
      RIDGE,
    );
  });
  const scored = test.filter((line) => pool.every((model) => line.outcomes[model] !== undefined));
  const outcome = (line: LabelledPrompt, m: number) => line.outcomes[pool[m]] ?? 0;
  let quality = 0;
  for (const line of scored) {
    const x = describe(line);
    const predictions = fits.map((fit) => fit.probability(x));
    quality += outcome(line, predictions.indexOf(Math.max(...predictions)));
  }
  const singles = pool.map((_, m) => scored.reduce((sum, line) => sum + outcome(line, m), 0));
  const n = scored.length || 1;
  return { informants, lines: scored.length, quality: quality / n, bestSingleQuality: Math.max(...singles) / n };
}
