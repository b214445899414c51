import type { LabelledPrompt } from './labelled-prompt';

/** Sums and counts of training outcomes, overall and per category, per model. */
export interface OutcomeMeans {
  /** Mean training outcome of the model, or of all models when it has none. */
  overall(model: string): number;
  /** The model's training outcomes in `category`: their sum and count (0, 0 when none). */
  inCategory(model: string, category: string): { sum: number; count: number };
  /** The model with the best mean training outcome among `models`; ties go to the name. */
  best(models: readonly string[]): string;
}

/** The kind of prompt the category baselines see: its category, or one bucket for lines without one. */
export const categoryOf = (line: LabelledPrompt): string => line.category ?? 'uncategorised';

export function outcomeMeans(prompts: readonly LabelledPrompt[]): OutcomeMeans {
  const overall = new Map<string, { sum: number; count: number }>();
  const perCategory = new Map<string, { sum: number; count: number }>();
  let [allSum, allCount] = [0, 0];
  const add = (map: Map<string, { sum: number; count: number }>, key: string, value: number) => {
    const entry = map.get(key) ?? { sum: 0, count: 0 };
    entry.sum += value;
    entry.count += 1;
    map.set(key, entry);
  };
  for (const line of prompts) {
    for (const [model, outcome] of Object.entries(line.outcomes)) {
      add(overall, model, outcome);
      add(perCategory, `${model}\u0000${categoryOf(line)}`, outcome);
      allSum += outcome;
      allCount += 1;
    }
  }
  /** Models never seen in training get the mean of all outcomes: nothing says they are better or worse. */
  const prior = allCount > 0 ? allSum / allCount : 0.5;
  const mean = (model: string) => {
    const entry = overall.get(model);
    return entry ? entry.sum / entry.count : prior;
  };
  return {
    overall: mean,
    inCategory: (model, category) => perCategory.get(`${model}\u0000${category}`) ?? { sum: 0, count: 0 },
    best: (models) => [...models].sort((a, b) => mean(b) - mean(a) || a.localeCompare(b))[0],
  };
}
