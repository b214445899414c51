import type { PluginId } from '../../../src/plugins/types';

/** The plugins pre-selection chooses between (legacy-file-search is space-search under its old id). */
export const CLASSIFIED_PLUGINS = [
  'web-search',
  'space-search',
  'image-generation-generic',
  'transcribe-audio',
  'social-post',
] as const satisfies readonly PluginId[];

export interface Counts {
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
}

export interface Figures extends Counts {
  precision: number;
  recall: number;
  f1: number;
  /** Prompts that need the plugin. */
  support: number;
}

/** One prompt's expected and chosen plugins. */
export interface Outcome {
  expected: readonly string[];
  chosen: readonly string[];
}

/** Precision and recall of nothing chosen (or nothing to find) are 1: no mistake was made. */
function figures(counts: Counts): Figures {
  const { truePositives: tp, falsePositives: fp, falseNegatives: fn } = counts;
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { ...counts, precision, recall, f1, support: tp + fn };
}

function countsFor(plugin: string, outcomes: readonly Outcome[]): Counts {
  const counts: Counts = { truePositives: 0, falsePositives: 0, falseNegatives: 0 };
  for (const { expected, chosen } of outcomes) {
    const [want, got] = [expected.includes(plugin), chosen.includes(plugin)];
    if (want && got) counts.truePositives += 1;
    else if (got) counts.falsePositives += 1;
    else if (want) counts.falseNegatives += 1;
  }
  return counts;
}

export interface SplitFigures {
  prompts: number;
  perPlugin: Record<(typeof CLASSIFIED_PLUGINS)[number], Figures>;
  /** Counts summed over plugins. */
  micro: Figures;
  /** Prompts whose chosen set is exactly the expected one. */
  exactMatch: number;
}

export function splitFigures(outcomes: readonly Outcome[]): SplitFigures {
  const perPlugin = Object.fromEntries(CLASSIFIED_PLUGINS.map((p) => [p, figures(countsFor(p, outcomes))])) as SplitFigures['perPlugin'];
  const sum = (key: keyof Counts): number => CLASSIFIED_PLUGINS.reduce((total, p) => total + perPlugin[p][key], 0);
  const micro = figures({ truePositives: sum('truePositives'), falsePositives: sum('falsePositives'), falseNegatives: sum('falseNegatives') });
  const same = (o: Outcome): boolean => o.expected.length === o.chosen.length && o.expected.every((p) => o.chosen.includes(p));
  return { prompts: outcomes.length, perPlugin, micro, exactMatch: outcomes.filter(same).length / Math.max(1, outcomes.length) };
}
