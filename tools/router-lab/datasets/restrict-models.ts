import type { LabelledPrompt } from '../evaluation/labelled-prompt';

/**
 * The lines with only `models`' outcomes, completion tokens and costs; a line left with no outcome is
 * dropped. Used to evaluate on a pool of candidates while training on every model's labels.
 */
export function restrictModels(lines: readonly LabelledPrompt[], models: readonly string[]): LabelledPrompt[] {
  const keep = new Set(models);
  const out: LabelledPrompt[] = [];
  for (const line of lines) {
    const outcomes = only(line.outcomes, keep);
    if (Object.keys(outcomes).length === 0) continue;
    const { completion_tokens: completionTokens, cost, ...rest } = line;
    const tokens = only(completionTokens ?? {}, keep);
    const costs = only(cost ?? {}, keep);
    out.push({
      ...rest,
      outcomes,
      ...(Object.keys(tokens).length > 0 ? { completion_tokens: tokens } : {}),
      ...(Object.keys(costs).length > 0 ? { cost: costs } : {}),
    });
  }
  return out;
}

/** Every model named in some line's outcomes, sorted. */
export function modelsOf(lines: readonly LabelledPrompt[]): string[] {
  const models = new Set<string>();
  for (const line of lines) for (const model of Object.keys(line.outcomes)) models.add(model);
  return [...models].sort();
}

function only(values: Record<string, number>, keep: ReadonlySet<string>): Record<string, number> {
  return Object.fromEntries(Object.entries(values).filter(([model]) => keep.has(model)));
}
